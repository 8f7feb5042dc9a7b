// bench:filters' moving parts: a daemon with the event-loop monitor preloaded (../lib/loop-delay.mjs),
// and a phase of attacker, victim and health probe against it, measured (test/bench/filters.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type DaemonProcess, repoRoot, startDaemonProcess } from '../lib/env.js';
import { percentiles, type Percentiles, treeCpuMs } from '../lib/metrics.js';

export interface Phase {
  name: string;
  attacks: number;
  attackStatuses: Record<string, number>;
  attack: Percentiles;
  victim: Percentiles;
  healthz: Percentiles;
  daemonCpuMs: number;
  pgCpuMs: number;
  loop?: { p50: number; p99: number; max: number; mean: number };
}

export interface Target {
  url: string;
  daemon: DaemonProcess;
  loopFile: string;
}

async function readLoop(t: Target) {
  const before = (() => {
    try {
      return JSON.parse(readFileSync(t.loopFile, 'utf8')).seq as number;
    } catch {
      return 0;
    }
  })();
  process.kill(t.daemon.pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    try {
      const s = JSON.parse(readFileSync(t.loopFile, 'utf8'));
      if (s.seq > before) return s as Phase['loop'];
    } catch {
      /* not written yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/** One phase: the attacker (a prepared body, or none; `concurrency` loops), the victim (or not) and the health probe, for `ms`. */
export async function phase(
  name: string,
  t: Target,
  pmPid: number,
  keys: { a: string; b: string },
  o: { attack?: string; victim: boolean; ms: number; concurrency: number },
) {
  const end = Date.now() + o.ms;
  const timed = async (list: number[], f: () => Promise<Response>) => {
    const s = performance.now();
    const res = await f();
    await res.arrayBuffer();
    list.push(performance.now() - s);
    return res.status;
  };
  const post = (key: string, body: string) => () =>
    fetch(`${t.url}/api/v1/search/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
  const attack: number[] = [];
  const victim: number[] = [];
  const healthz: number[] = [];
  const statuses: Record<string, number> = {};
  const victimBody = JSON.stringify({ query: 'harbour budget ledger', limit: 10, filter: { dept: 'legal' } });
  await readLoop(t);
  const cpu0 = [treeCpuMs(t.daemon.pid), treeCpuMs(pmPid)];
  const loops = [
    ...(o.attack
      ? Array.from({ length: o.concurrency }, async () => {
          while (Date.now() < end) {
            const s = await timed(attack, post(keys.a, o.attack!));
            statuses[s] = (statuses[s] ?? 0) + 1;
          }
        })
      : []),
    o.victim
      ? (async () => {
          while (Date.now() < end) if ((await timed(victim, post(keys.b, victimBody))) !== 200) throw new Error('victim search failed');
        })()
      : undefined,
    (async () => {
      while (Date.now() < end) {
        await timed(healthz, () => fetch(`${t.url}/healthz`));
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
  ];
  await Promise.all(loops);
  const cpu = [treeCpuMs(t.daemon.pid) - cpu0[0]!, treeCpuMs(pmPid) - cpu0[1]!];
  return {
    name,
    attacks: attack.length,
    attackStatuses: statuses,
    attack: percentiles(attack),
    victim: percentiles(victim),
    healthz: percentiles(healthz),
    daemonCpuMs: cpu[0]!,
    pgCpuMs: cpu[1]!,
    loop: await readLoop(t),
  } satisfies Phase;
}

/** A daemon (`serve`, rate limits off) with the event-loop monitor preloaded; `cpuProf`: a directory for its CPU profile. */
export async function startTarget(dbUrl: string, dir: string, label: string, o: { cwd?: string; cpuProf?: string } = {}): Promise<Target> {
  const loopFile = path.join(dir, `loop-${label}.json`);
  const daemon = await startDaemonProcess({
    args: ['serve'],
    ...(o.cwd ? { cwd: o.cwd } : {}),
    nodeArgs: [
      '--import',
      path.join(repoRoot, 'test/bench/lib/loop-delay.mjs'),
      ...(o.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProf}`] : []),
    ],
    logFile: path.join(dir, `daemon-${label}.log`),
    env: {
      DATABASE_URL: dbUrl,
      DATA_DIR: path.join(dir, `data-${label}`),
      PORT: '0',
      LOG_LEVEL: 'warn',
      SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef0123456789',
      RATE_LIMITS_ENABLED: 'false',
      BENCH_LOOP_DELAY_FILE: loopFile,
    },
  });
  return { url: daemon.url!, daemon, loopFile };
}
