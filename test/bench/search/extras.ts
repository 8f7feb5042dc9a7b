// The two runs beside the main matrix, both at the full corpus size:
// - with query embedding: the real built-in model (USE-lite) in the daemon, with query texts it has
//   never seen, so every search embeds; plus the model's own per-query time, in-process;
// - with the production middleware (per-user rate limits, request log, plan quota) switched on.
import { BUILTIN_MODEL, BuiltinEmbeddingProvider } from '../../../daemon/src/embeddings/builtin.js';
import type { Sql } from '../../../daemon/src/db/client.js';
import { percentiles, type Percentiles } from '../lib/metrics.js';
import { setStoredModel } from './corpus.js';
import { startSearchDaemon, type DaemonSetup } from './daemon.js';
import { cpuProbe, runLoad, searchClient, type LoadResult } from './load.js';
import { FLOOR_APP, measureFloor, type FloorQuery } from './sql-floor.js';
import { BENCH_MODEL } from './vectors.js';

export interface EmbeddingRun {
  inProcessEmbedMs: Percentiles;
  http: { mode: string; concurrency: number; result: LoadResult }[];
}

export async function withQueryEmbedding(
  sql: Sql,
  base: Omit<DaemonSetup, 'provider' | 'label'> & { key: string },
  fresh: string[],
  requests16: number,
  log: (line: string) => void,
): Promise<EmbeddingRun> {
  // The model alone, one query at a time, while nothing else of ours runs.
  const provider = new BuiltinEmbeddingProvider();
  const embedMs: number[] = [];
  try {
    await provider.embed(['load the model first']);
    for (const text of fresh.slice(0, 100)) {
      const t = performance.now();
      await provider.embed([text]);
      embedMs.push(performance.now() - t);
    }
  } finally {
    await provider.close();
  }
  const inProcessEmbedMs = percentiles(embedMs);
  log(`  built-in model, in-process, 1 query per call: p50 ${inProcessEmbedMs.p50} ms, p99 ${inProcessEmbedMs.p99} ms`);

  // The daemon refuses to start on a database recorded for another model; the stored vectors stay
  // synthetic, so results are meaningless here, but the work per search is the same.
  await setStoredModel(sql, BUILTIN_MODEL);
  const daemon = await startSearchDaemon({ ...base, provider: { kind: 'builtin' }, label: 'builtin' });
  const client = searchClient(daemon.url!, base.key);
  const http: EmbeddingRun['http'] = [];
  try {
    const warm = await client.post({ query: 'load the model first', mode: 'vector', limit: 5 });
    if (warm.status !== 200) throw new Error(`builtin daemon: ${JSON.stringify(warm.body).slice(0, 300)}`);
    // Each run gets texts no earlier run sent, so the daemon's query-embedding cache never hits.
    const n1 = Math.min(150, Math.floor(fresh.length / 4));
    const runs: { mode: string; concurrency: number; texts: string[]; requests: number }[] = [
      { mode: 'hybrid', concurrency: 1, texts: fresh.slice(0, n1), requests: n1 },
      { mode: 'vector', concurrency: 1, texts: fresh.slice(n1, 2 * n1), requests: n1 },
      { mode: 'hybrid', concurrency: 16, texts: fresh.slice(2 * n1), requests: Math.min(requests16, fresh.length - 2 * n1) },
    ];
    for (const r of runs) {
      const result = await runLoad(
        r.texts,
        { concurrency: r.concurrency, requests: r.requests, cpu: cpuProbe(sql, 'docsift', daemon.pid) },
        async (text) => {
          const res = await client.post({ query: text, mode: r.mode, limit: 5 });
          return { ok: res.status === 200 && (res.body as { fallback?: unknown }).fallback === null, body: res.body };
        },
      );
      delete result.sample;
      http.push({ mode: r.mode, concurrency: r.concurrency, result });
      log(
        `  http with embedding  ${r.mode.padEnd(6)} c=${String(r.concurrency).padEnd(2)} p50 ${result.p50} ms  p99 ${result.p99} ms  ${result.throughput}/s  cpu ${result.cpuMsPerRequest} ms/req  (load ${result.load1}${result.errors ? `, ${result.errors} errors` : ''})`,
      );
    }
  } finally {
    client.close();
    await daemon.stop();
    await setStoredModel(sql, BENCH_MODEL);
  }
  return { inProcessEmbedMs, http };
}

export interface MeteredRun {
  queries: number;
  floor: LoadResult;
  plain: LoadResult;
  metered: LoadResult;
}

/**
 * Hybrid at concurrency 1 over the same queries: SQL floor, the daemon as benchmarked (limits and
 * metering off), and with both on. Kept under the pro tier's 300 requests/minute.
 */
export async function withMetering(
  sql: Sql,
  base: Omit<DaemonSetup, 'provider' | 'label'> & { key: string; standIn: string },
  queries: FloorQuery[],
  collectionIds: string[],
  log: (line: string) => void,
): Promise<MeteredRun> {
  const q = queries.slice(0, 120);
  const floor = await measureFloor(sql, 'hybrid', q, collectionIds, { concurrency: 1, requests: q.length, cpu: cpuProbe(sql, FLOOR_APP) });
  const out: Partial<MeteredRun> = { queries: q.length, floor };
  for (const metering of [false, true]) {
    const daemon = await startSearchDaemon({
      ...base,
      metering,
      provider: { kind: 'ollama', host: base.standIn, model: BENCH_MODEL },
      label: metering ? 'metered' : 'plain',
    });
    const client = searchClient(daemon.url!, base.key);
    try {
      const call = async (x: FloorQuery) => {
        const res = await client.post({ query: x.text, mode: 'hybrid', limit: 5 });
        return { ok: res.status === 200, body: res.body };
      };
      // Warm the query-embedding cache: 120 + 120 requests stay within one minute's 300.
      await runLoad(q, { concurrency: 4, requests: q.length }, call);
      const r = await runLoad(q, { concurrency: 1, requests: q.length, cpu: cpuProbe(sql, 'docsift', daemon.pid) }, call);
      delete r.sample;
      out[metering ? 'metered' : 'plain'] = r;
      log(
        `  http hybrid c=1 ${metering ? 'limits+metering ON ' : 'limits+metering off'}: p50 ${r.p50} ms  p99 ${r.p99} ms  cpu ${r.cpuMsPerRequest} ms/req  (SQL floor p50 ${floor.p50} ms, cpu ${floor.cpuMsPerRequest} ms/req, load ${r.load1}${r.errors ? `, ${r.errors} errors` : ''})`,
      );
    } finally {
      client.close();
      await daemon.stop();
    }
  }
  return out as MeteredRun;
}
