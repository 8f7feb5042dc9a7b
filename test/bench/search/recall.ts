// HNSW recall against exact search, through the daemon's own vector-channel query. "Exact" is the
// same statement planned with index and bitmap scans disabled, so PostgreSQL scans every visible
// chunk and sorts by true cosine distance. ANN runs at each ef_search on its own pool, configured as the
// daemon configures its pool (HNSW_EF_SEARCH → startup parameter), so latencies are comparable.
import postgres from 'postgres';
import { createSql, type Sql } from '../../../daemon/src/db/client.js';
import { vectorCandidates } from '../../../daemon/src/search/vector-channel.js';
import { compileConditions } from '../../../daemon/src/search/conditions.js';
import { percentiles, round } from '../lib/metrics.js';
import { CANDIDATES, type FloorQuery } from './sql-floor.js';

export interface RecallRow {
  efSearch: number;
  recall10: number;
  recall100: number;
  /** queries that returned fewer than 100 candidates */
  short: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * A connection on which every plan is exact: index and bitmap scans are off from its start, and
 * plans are made per execution. (A `set local` on a pooled connection is not enough: a prepared
 * statement's cached generic plan keeps its HNSW scan whatever the planner settings are now.)
 */
function exactPool(url: string): Sql {
  return postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: {
      enable_indexscan: 'off',
      enable_bitmapscan: 'off',
      plan_cache_mode: 'force_custom_plan',
      application_name: 'bench-search-exact',
    },
  }) as unknown as Sql;
}

export async function measureRecall(
  url: string,
  queries: FloorQuery[],
  collectionIds: string[],
  efValues: number[],
  log: (line: string) => void,
): Promise<{ exactP50Ms: number; rows: RecallRow[] }> {
  const exact: string[][] = [];
  const exactMs: number[] = [];
  const ex = exactPool(url);
  try {
    const [plan] = await ex<{ p: string }[]>`select current_setting('enable_indexscan') as p`;
    if (plan?.p !== 'off') throw new Error('exact search pool: index scans are still enabled');
    for (const q of queries) {
      const t = performance.now();
      exact.push(
        (await vectorCandidates(ex, q.vector, compileConditions(ex, { collectionIds }, 600_000), CANDIDATES)).map((c) => c.chunkId),
      );
      exactMs.push(performance.now() - t);
    }
  } finally {
    await ex.end();
  }
  log(`  exact search: ${queries.length} queries, p50 ${percentiles(exactMs).p50} ms`);
  const rows: RecallRow[] = [];
  for (const ef of efValues) {
    const ms: number[] = [];
    let hit10 = 0;
    let hit100 = 0;
    let want10 = 0;
    let want100 = 0;
    let short = 0;
    const pool = createSql(url, { max: 1, hnswEfSearch: ef });
    for (const q of queries.slice(0, 20))
      await vectorCandidates(pool, q.vector, compileConditions(pool, { collectionIds }, 600_000), CANDIDATES);
    for (const [i, q] of queries.entries()) {
      const t = performance.now();
      const got = (await vectorCandidates(pool, q.vector, compileConditions(pool, { collectionIds }, 600_000), CANDIDATES)).map(
        (c) => c.chunkId,
      );
      ms.push(performance.now() - t);
      const truth = exact[i]!;
      const g10 = new Set(got.slice(0, 10));
      const g100 = new Set(got);
      hit10 += truth.slice(0, 10).filter((id) => g10.has(id)).length;
      hit100 += truth.filter((id) => g100.has(id)).length;
      want10 += Math.min(10, truth.length);
      want100 += truth.length;
      if (got.length < Math.min(CANDIDATES, truth.length)) short++;
    }
    await pool.end();
    const p = percentiles(ms);
    rows.push({
      efSearch: ef,
      recall10: round(hit10 / want10, 4),
      recall100: round(hit100 / want100, 4),
      short,
      p50Ms: p.p50,
      p99Ms: p.p99,
    });
  }
  return { exactP50Ms: percentiles(exactMs).p50, rows };
}
