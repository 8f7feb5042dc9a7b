// Facets and highlights (daemon/src/search/facets.ts, highlights.ts) at the full corpus size, after
// the filtered phase gave every document metadata {"bucket": 0..99}:
// - hybrid search at c=1 with and without `facets` (metadata.bucket, collection, tags), the two
//   interleaved query by query so both see the same load: the p50 of each, and of the per-query
//   difference (the target: facets add ≤ 30 ms p50 at 100k chunks);
// - highlightSpans alone on each answer's results, in this process, the first time (words it has
//   not seen lexized) and again (all cached): highlights are always computed, so their time is
//   what they add to a search;
// - GET /documents/facets/ over every document (at most 10,000 counted).
import os from 'node:os';
import type { Sql } from '../../../daemon/src/db/client.js';
import { highlightSpans } from '../../../daemon/src/search/highlights.js';
import { percentiles, round, type Percentiles } from '../lib/metrics.js';
import { searchClient } from './load.js';
import type { FloorQuery } from './sql-floor.js';

export const FACET_FIELDS = ['metadata.bucket', 'collection', 'tags'];

interface Ctx {
  sql: Sql;
  baseUrl: string;
  key: string;
  queries: FloorQuery[];
  log: (line: string) => void;
}

export interface FacetsRun {
  queries: number;
  plain: Percentiles;
  with_facets: Percentiles;
  added: Percentiles;
  /** highlightSpans on the page's results: first for the query (words new to this process lexized), then again (all cached). */
  highlight_first: Percentiles;
  highlight_cached: Percentiles;
  list_facets: Percentiles;
  load1: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

export async function benchFacets(ctx: Ctx): Promise<FacetsRun> {
  const client = searchClient(ctx.baseUrl, ctx.key);
  const plain: number[] = [];
  const faceted: number[] = [];
  const added: number[] = [];
  const highlightFirst: number[] = [];
  const highlightCached: number[] = [];
  const list: number[] = [];
  const q = ctx.queries.slice(0, 150);
  try {
    const call = (x: FloorQuery, facets: boolean) =>
      client.post({ query: x.text, mode: 'hybrid', limit: 10, ...(facets ? { facets: FACET_FIELDS } : {}) });
    // Each query once before measuring: its embedding cached, its statements planned.
    for (const x of q.slice(0, 20)) await call(x, true);
    for (const [i, x] of q.entries()) {
      // Alternate which goes first, so neither always meets a cache the other warmed.
      const order = i % 2 ? [true, false] : [false, true];
      const ms: Record<string, number> = {};
      for (const facets of order) {
        const [t, r] = await timed(() => call(x, facets));
        if (r.status !== 200) throw new Error(`search ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
        ms[String(facets)] = t;
        if (facets) {
          const results = (r.body as { results: { chunk_id: string; content: string }[] }).results;
          const spans = () =>
            highlightSpans(
              ctx.sql,
              { textConfig: 'english', timeoutMs: 10_000 },
              x.text,
              results.map((y) => ({ chunkId: y.chunk_id, content: y.content })),
            );
          highlightFirst.push((await timed(spans))[0]);
          highlightCached.push((await timed(spans))[0]);
        }
      }
      plain.push(ms.false!);
      faceted.push(ms.true!);
      added.push(ms.true! - ms.false!);
    }
    const url = new URL(`/api/v1/documents/facets/?facets=${FACET_FIELDS.join(',')}`, ctx.baseUrl);
    for (let i = 0; i < 30; i++) {
      const [t, r] = await timed(() => fetch(url, { headers: { authorization: `Bearer ${ctx.key}` } }).then((x) => x.status));
      if (r !== 200) throw new Error(`list facets ${r}`);
      list.push(t);
    }
  } finally {
    client.close();
  }
  const run: FacetsRun = {
    queries: q.length,
    plain: percentiles(plain),
    with_facets: percentiles(faceted),
    added: percentiles(added),
    highlight_first: percentiles(highlightFirst),
    highlight_cached: percentiles(highlightCached),
    list_facets: percentiles(list),
    load1: round(os.loadavg()[0]!, 2),
  };
  ctx.log(
    `  facets: hybrid c=1 p50 ${run.plain.p50} ms without, ${run.with_facets.p50} ms with ${FACET_FIELDS.join(',')} (added p50 ${run.added.p50} ms, p95 ${run.added.p95} ms); highlights p50 ${run.highlight_first.p50} ms first (new words lexized), ${run.highlight_cached.p50} ms cached (p99 ${run.highlight_first.p99} / ${run.highlight_cached.p99} ms); GET /documents/facets/ p50 ${run.list_facets.p50} ms (${run.queries} queries, load ${run.load1})`,
  );
  return run;
}
