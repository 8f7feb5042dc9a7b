// HNSW recall@10 of the vector channel on a database kept by `npm run bench:search -- --keep`,
// for several graph builds in turn: each build drops the index and creates it again with the
// given m, ef_construction and parallel maintenance workers, then measures recall against exact
// search (computed once, cached in --truth) at each ef_search, with iterative scan as the daemon
// runs it (relaxed_order) and off.
//
//   node --import tsx test/bench/search/hnsw-sweep.ts --url postgres://…/kept --builds 16:64:2,16:64:0,16:128:2 [--ef 40,100,200]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createSql, type Sql } from '../../../daemon/src/db/client.js';
import { vectorIndexName } from '../../../daemon/src/indexing/embedding-model.js';
import { vectorCandidates } from '../../../daemon/src/search/vector-channel.js';
import { compileConditions } from '../../../daemon/src/search/conditions.js';
import { runMain } from '../lib/env.js';
import { testQueries } from './queries.js';
import { CANDIDATES } from './sql-floor.js';
import { BENCH_DIMENSION, createMixture, queryVector } from './vectors.js';

const { values: a } = parseArgs({
  options: {
    url: { type: 'string' },
    builds: { type: 'string', default: 'keep' },
    ef: { type: 'string', default: '40,100,200' },
    queries: { type: 'string', default: '200' },
    truth: { type: 'string', default: '/tmp/hnsw-truth.json' },
    'iterative-off': { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stdout.write(line + '\n');
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

async function exactTruth(url: string, queries: number[][], ids: string[]): Promise<string[][]> {
  if (existsSync(a.truth)) {
    const t = JSON.parse(readFileSync(a.truth, 'utf8')) as { url: string; truth: string[][] };
    if (t.url === url && t.truth.length >= queries.length) return t.truth;
  }
  const ex = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { enable_indexscan: 'off', enable_bitmapscan: 'off', plan_cache_mode: 'force_custom_plan' },
  }) as unknown as Sql;
  const truth: string[][] = [];
  for (const v of queries)
    truth.push((await vectorCandidates(ex, v, compileConditions(ex, { collectionIds: ids }, 600_000), CANDIDATES)).map((c) => c.chunkId));
  await ex.end();
  writeFileSync(a.truth, JSON.stringify({ url, truth }));
  return truth;
}

async function recall(url: string, queries: number[][], truth: string[][], ids: string[], ef: number, iterative: string) {
  const pool = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { 'hnsw.ef_search': String(ef), 'hnsw.iterative_scan': iterative },
  }) as unknown as Sql;
  let hit = 0;
  let want = 0;
  let short = 0;
  const t = performance.now();
  for (const [i, v] of queries.entries()) {
    const got = (await vectorCandidates(pool, v, compileConditions(pool, { collectionIds: ids }, 600_000), CANDIDATES)).map(
      (c) => c.chunkId,
    );
    const g10 = new Set(got.slice(0, 10));
    hit += truth[i]!.slice(0, 10).filter((id) => g10.has(id)).length;
    want += Math.min(10, truth[i]!.length);
    if (got.length < CANDIDATES) short++;
  }
  await pool.end();
  return { r10: (hit / want).toFixed(4), short, ms: ((performance.now() - t) / queries.length).toFixed(1) };
}

async function main(): Promise<void> {
  if (!a.url) throw new Error('--url');
  const sql = createSql(a.url, { max: 1 });
  const mixture = createMixture();
  const queries = testQueries()
    .slice(0, Number(a.queries))
    .map((t) => queryVector(mixture, t));
  const ids = (await sql<{ id: string }[]>`select id from collections where slug like 'bench-%'`).map((r) => r.id);
  const truth = await exactTruth(a.url, queries, ids);
  log(`exact truth for ${queries.length} queries; load ${load()}`);
  for (const build of a.builds.split(',')) {
    if (build !== 'keep') {
      const [m, efc, workers] = build.split(':').map(Number);
      const t = performance.now();
      await sql.unsafe(`drop index if exists ${vectorIndexName(BENCH_DIMENSION)}`);
      await sql.begin(async (tx) => {
        await tx`select set_config('maintenance_work_mem', '1GB', true)`;
        await tx`select set_config('max_parallel_maintenance_workers', ${String(workers ?? 2)}, true)`;
        await tx.unsafe(
          `create index ${vectorIndexName(BENCH_DIMENSION)} on chunks using hnsw ((embedding::halfvec(${BENCH_DIMENSION})) halfvec_cosine_ops) with (m = ${m}, ef_construction = ${efc}) where vector_dims(embedding) = ${BENCH_DIMENSION}`,
        );
      });
      const [size] = await sql<{ mb: number }[]>`select pg_relation_size(${vectorIndexName(BENCH_DIMENSION)}) / 1048576 as mb`;
      log(
        `build m=${m} ef_construction=${efc} workers=${workers}: ${((performance.now() - t) / 1000).toFixed(1)} s, ${size?.mb} MB; load ${load()}`,
      );
    }
    for (const ef of a.ef.split(',').map(Number)) {
      for (const it of a['iterative-off'] ? ['relaxed_order', 'off'] : ['relaxed_order']) {
        const r = await recall(a.url, queries, truth, ids, ef, it);
        log(`  ${build} ef_search ${ef} iterative ${it}: recall@10 ${r.r10}, short ${r.short}, ${r.ms} ms/query; load ${load()}`);
      }
    }
  }
  await sql.end();
}

runMain(main);
