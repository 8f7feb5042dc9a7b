// Closed-loop load: `concurrency` workers each send the next request as soon as their previous one
// answered, until `requests` are done. Latency per request, throughput = requests / wall time. The
// HTTP client is node:http with keep-alive (lighter than fetch: the client shares the two cores).
import { Agent, request } from 'node:http';
import os from 'node:os';
import { readFileSync } from 'node:fs';
import type { Sql } from '../../../daemon/src/db/client.js';
import { percentiles, round, type Percentiles } from '../lib/metrics.js';

export interface LoadResult extends Percentiles {
  concurrency: number;
  errors: number;
  /** completed requests per second over the run */
  throughput: number;
  wallMs: number;
  load1: number;
  /** CPU per request (ms) of the server side: the daemon process and its PostgreSQL backends */
  cpuMsPerRequest?: number;
  sample?: unknown;
}

/** utime + stime of a process in ms (Linux /proc; clock ticks are 100/s on every usual kernel). */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * CPU used so far by a set of processes: optionally one pid (the daemon) plus the PostgreSQL
 * backends whose application_name is `appName` in the current database (its pool). On this shared
 * machine wall-clock latency depends on everyone else's load; CPU per search does not.
 */
export function cpuProbe(sql: Sql, appName: string, pid?: number): () => Promise<number> {
  return async () => {
    const rows = await sql<
      { pid: number }[]
    >`select pid from pg_stat_activity where application_name = ${appName} and datname = current_database()`;
    return [pid, ...rows.map((r) => r.pid)].reduce<number>((sum, p) => sum + (p === undefined ? 0 : (cpuMs(p) ?? 0)), 0);
  };
}

export async function runLoad<T>(
  items: T[],
  opts: { concurrency: number; requests: number; cpu?: () => Promise<number> },
  call: (item: T) => Promise<{ ok: boolean; body?: unknown }>,
): Promise<LoadResult> {
  const times: number[] = [];
  let errors = 0;
  let next = 0;
  let sample: unknown;
  const cpu0 = await opts.cpu?.();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < opts.requests) {
        const item = items[next++ % items.length]!;
        const t = performance.now();
        const r = await call(item).catch((err: unknown) => ({ ok: false, body: String(err) }));
        if (r.ok) times.push(performance.now() - t);
        else errors++;
        if (!r.ok && errors <= 3) process.stderr.write(`request failed: ${JSON.stringify(r.body).slice(0, 300)}\n`);
        sample ??= r.body;
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpu1 = await opts.cpu?.();
  return {
    ...percentiles(times),
    concurrency: opts.concurrency,
    errors,
    throughput: round(times.length / (wallMs / 1000)),
    wallMs: Math.round(wallMs),
    load1: round(os.loadavg()[0]!, 2),
    ...(cpu0 !== undefined && cpu1 !== undefined ? { cpuMsPerRequest: round((cpu1 - cpu0) / opts.requests, 2) } : {}),
    sample,
  };
}

export interface SearchClient {
  post(body: unknown): Promise<{ status: number; body: unknown }>;
  close(): void;
}

export function searchClient(baseUrl: string, key: string): SearchClient {
  const url = new URL('/api/v1/search/', baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  return {
    post(body) {
      const data = JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (c: Buffer) => parts.push(c));
            res.on('end', () => {
              const text = Buffer.concat(parts).toString('utf8');
              let parsed: unknown = text;
              try {
                parsed = JSON.parse(text);
              } catch {
                /* keep text */
              }
              resolve({ status: res.statusCode ?? 0, body: parsed });
            });
            res.on('error', reject);
          },
        );
        req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
        req.on('error', reject);
        req.end(data);
      });
    },
    close: () => agent.destroy(),
  };
}

/**
 * Open loop: requests arrive at `rate` per second (Poisson) whatever the server does, with at most
 * `maxInFlight` outstanding (as 16 clients would). Latency counts from the scheduled arrival, so a
 * backlog shows up in the figures instead of silently lowering the offered load.
 */
export async function runOpenLoop<T>(
  items: T[],
  opts: { rate: number; requests: number; maxInFlight: number; seed?: number },
  call: (item: T) => Promise<{ ok: boolean; body?: unknown }>,
): Promise<LoadResult & { offeredRate: number }> {
  const times: number[] = [];
  let errors = 0;
  let inFlight = 0;
  let x = opts.seed ?? 12345;
  const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
  const started = performance.now();
  const waiters: (() => void)[] = [];
  const running: Promise<void>[] = [];
  let at = 0;
  for (let i = 0; i < opts.requests; i++) {
    at += (-Math.log(1 - rand()) / opts.rate) * 1000;
    const wait = started + at - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight >= opts.maxInFlight) await new Promise<void>((r) => waiters.push(r));
    const scheduled = started + at;
    inFlight++;
    running.push(
      call(items[i % items.length]!)
        .catch(() => ({ ok: false }))
        .then((r) => {
          if (r.ok) times.push(performance.now() - scheduled);
          else errors++;
          inFlight--;
          waiters.shift()?.();
        }),
    );
  }
  await Promise.all(running);
  const wallMs = performance.now() - started;
  return {
    ...percentiles(times),
    concurrency: opts.maxInFlight,
    errors,
    throughput: round(times.length / (wallMs / 1000)),
    wallMs: Math.round(wallMs),
    load1: round(os.loadavg()[0]!, 2),
    offeredRate: opts.rate,
  };
}
