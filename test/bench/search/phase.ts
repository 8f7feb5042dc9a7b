// One corpus size: for each search scope and mode, the SQL floor and POST /api/v1/search/ measured
// back to back (so both see the same machine load), at concurrency 1 and 16, plus the three
// database steps on their own and an open-loop run at a fixed arrival rate.
import type { Sql } from '../../../daemon/src/db/client.js';
import { runLoad, runOpenLoop, searchClient, type LoadResult } from './load.js';
import { hydrateTargets, measureFloor, type FloorQuery, type FloorStep } from './sql-floor.js';

export type Mode = 'text' | 'hybrid' | 'vector';

export interface Scope {
  name: 'all' | 'big' | 'small';
  collectionIds: string[];
  /** collection slug sent in the request; none = every collection the key sees */
  slug?: string;
  chunks: number;
}

export interface Row extends LoadResult {
  scope: Scope['name'];
  kind: 'sql' | 'http' | 'http-open-loop';
  step: FloorStep | Mode;
  /** texts the embedding stand-in had to embed during the measured run (0 = warm cache) */
  embedded?: number;
}

export interface PhaseContext {
  sql: Sql;
  baseUrl: string;
  key: string;
  /** CPU of the daemon process + its pool's backends; of the floor pool's backends */
  daemonCpu: () => Promise<number>;
  floorCpu: () => Promise<number>;
  queries: FloorQuery[];
  scopes: Scope[];
  requests16: number;
  /** modes run at c=16 per scope over HTTP (the SQL floor at c=16 runs for hybrid only) */
  c16: Partial<Record<Scope['name'], Mode[]>>;
  openLoopRate: number;
  embeddedSoFar: () => number;
  log: (line: string) => void;
}

const MODES: Mode[] = ['text', 'hybrid', 'vector'];

/** Rounds of searches at c=16 until CPU per search is within 5 % of the round before (at most 8 rounds). */
async function warmUntilSteady(
  ctx: PhaseContext,
  q: FloorQuery[],
  call: (x: FloorQuery) => Promise<{ ok: boolean; body?: unknown }>,
  label: string,
): Promise<void> {
  const seen: number[] = [];
  for (let round = 0; round < 8; round++) {
    const r = await runLoad(q, { concurrency: 16, requests: q.length, cpu: ctx.daemonCpu }, call);
    seen.push(r.cpuMsPerRequest ?? 0);
    const [prev, last] = seen.slice(-2);
    if (prev !== undefined && last !== undefined && last >= prev * 0.95) break;
  }
  ctx.log(`  warm-up ${label} c=16: cpu ${seen.join(', ')} ms/req over rounds of ${q.length}`);
}

function fmt(r: Row): string {
  const cpu = r.cpuMsPerRequest === undefined ? '' : `  cpu ${r.cpuMsPerRequest} ms/req`;
  return `  ${r.kind.padEnd(14)} ${r.scope.padEnd(5)} ${r.step.padEnd(14)} c=${String(r.concurrency).padEnd(2)} p50 ${r.p50} ms  p99 ${r.p99} ms  ${r.throughput}/s${cpu}  (load ${r.load1}${r.errors ? `, ${r.errors} errors` : ''})`;
}

export async function benchPhase(ctx: PhaseContext): Promise<Row[]> {
  const rows: Row[] = [];
  const client = searchClient(ctx.baseUrl, ctx.key);
  const add = (r: Row) => (rows.push(r), ctx.log(fmt(r)));
  const q = ctx.queries;
  try {
    // Warm the daemon's query-embedding cache (every query text once), so no measured request
    // waits for an embedding: these figures exclude query embedding.
    const warm = await runLoad(q, { concurrency: 4, requests: q.length }, async (x) => {
      const r = await client.post({ query: x.text, mode: 'vector', limit: 5 });
      return { ok: r.status === 200, body: r.body };
    });
    if (warm.errors) throw new Error(`warm-up: ${warm.errors} failed searches`);

    for (const scope of ctx.scopes) {
      const ids = scope.collectionIds;
      const hydrateIds = await hydrateTargets(ctx.sql, q, ids);
      for (const step of ['text-channel', 'typo-step', 'vector-channel', 'hydrate'] as const) {
        add({
          scope: scope.name,
          kind: 'sql',
          step,
          ...(await measureFloor(ctx.sql, step, q, ids, { concurrency: 1, requests: q.length, hydrateIds, cpu: ctx.floorCpu })),
        });
      }
      for (const mode of MODES) {
        const body = (text: string) => ({ query: text, mode, limit: 5, ...(scope.slug ? { collection: scope.slug } : {}) });
        const call = async (x: FloorQuery) => {
          const r = await client.post(body(x.text));
          const b = r.body as { count?: number; fallback?: string | null };
          return { ok: r.status === 200 && b.fallback === null, body: r.body };
        };
        const http = async (concurrency: number, requests: number) => {
          const before = ctx.embeddedSoFar();
          const r = await runLoad(q, { concurrency, requests, cpu: ctx.daemonCpu }, call);
          const sample = r.sample as { count?: number } | undefined;
          delete r.sample;
          if (sample?.count === undefined) ctx.log(`  unexpected response: ${JSON.stringify(sample).slice(0, 300)}`);
          return { ...r, embedded: ctx.embeddedSoFar() - before };
        };
        // Warm pages and plans at the highest concurrency measured, so every connection of the
        // daemon's pool (DB_POOL_MAX, 4 on 2 cores; a hybrid search holds two) has planned this mode's statements
        // before a measured run: PostgreSQL plans a prepared statement five times per connection
        // before it settles on the generic plan, 3.6 ms a plan for the text channel's first statement
        // (docs/performance.md, 2026-11-27). A daemon in service has done this long before.
        await runLoad(q, { concurrency: 16, requests: Math.min(200, q.length) }, call);
        // A mode measured at c=16 (a throughput figure) is measured in service: V8 keeps optimising the
        // daemon for thousands of requests (1-2 ms of CPU per search, docs/performance.md), so rounds run
        // until CPU per search stops falling, each printed.
        if (ctx.c16[scope.name]?.includes(mode)) await warmUntilSteady(ctx, q, call, `${scope.name} ${mode}`);
        add({
          scope: scope.name,
          kind: 'sql',
          step: mode,
          ...(await measureFloor(ctx.sql, mode, q, ids, { concurrency: 1, requests: q.length, cpu: ctx.floorCpu })),
        });
        add({ scope: scope.name, kind: 'http', step: mode, ...(await http(1, q.length)) });
        if (ctx.c16[scope.name]?.includes(mode)) {
          if (mode === 'hybrid')
            add({
              scope: scope.name,
              kind: 'sql',
              step: mode,
              ...(await measureFloor(ctx.sql, mode, q, ids, { concurrency: 16, requests: ctx.requests16, cpu: ctx.floorCpu })),
            });
          add({ scope: scope.name, kind: 'http', step: mode, ...(await http(16, ctx.requests16)) });
        }
        if (mode === 'hybrid' && scope.name === 'all' && ctx.openLoopRate > 0) {
          const r = await runOpenLoop(q, { rate: ctx.openLoopRate, requests: Math.max(300, ctx.openLoopRate * 10), maxInFlight: 16 }, call);
          add({ scope: scope.name, kind: 'http-open-loop', step: mode, ...r });
        }
      }
    }
  } finally {
    client.close();
  }
  return rows;
}
