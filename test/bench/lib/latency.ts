// Latency probe: issues a fixed set of API calls every intervalMs (one after another, as a client
// polling a dashboard would) and records each call's time. Failed calls are counted, not timed.
import { percentiles, type Percentiles } from './metrics.js';

export interface Probe {
  name: string;
  /** Performs one call; resolves to true when the answer was the expected one. */
  run(): Promise<boolean>;
}

export interface ProbeStats extends Percentiles {
  errors: number;
}

export interface LatencyProbe {
  /** Stops after the current round and returns stats per probe name. */
  stop(): Promise<Record<string, ProbeStats>>;
}

export function startLatencyProbe(probes: Probe[], intervalMs = 50): LatencyProbe {
  const times = new Map<string, number[]>(probes.map((p) => [p.name, []]));
  const errors = new Map<string, number>(probes.map((p) => [p.name, 0]));
  let running = true;
  const loop = (async () => {
    while (running) {
      const round = performance.now();
      for (const p of probes) {
        const started = performance.now();
        const ok = await p.run().catch(() => false);
        if (ok) times.get(p.name)!.push(performance.now() - started);
        else errors.set(p.name, errors.get(p.name)! + 1);
      }
      // A slow round starts the next one at once rather than piling up calls.
      const wait = intervalMs - (performance.now() - round);
      if (wait > 0 && running) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const out: Record<string, ProbeStats> = {};
      for (const p of probes) out[p.name] = { ...percentiles(times.get(p.name)!), errors: errors.get(p.name)! };
      return out;
    },
  };
}

/** Runs the probe for a fixed time (e.g. an idle baseline) and returns its stats. */
export async function measureLatency(probes: Probe[], durationMs: number, intervalMs = 50): Promise<Record<string, ProbeStats>> {
  const probe = startLatencyProbe(probes, intervalMs);
  await new Promise((r) => setTimeout(r, durationMs));
  return probe.stop();
}
