// `npm run bench:search`: latency and throughput of POST /api/v1/search/ on a synthetic corpus of
// 100,000 chunks written straight into the tables (10,000 first, for the growth curve), with the
// identical SQL run directly as the floor, HNSW recall against exact search, and the targets.
// See test/bench/search/README.md.
//
//   npm run bench:search [-- --chunks 100000] [--growth 10000] [--requests 400] [--keep] [--database-read-url URL]   (all options: README)
import { statfsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createSql, type Sql } from '../../daemon/src/db/client.js';
import { benchDatabase, benchTempDir, type BenchDatabase, type DaemonProcess } from './lib/env.js';
import { machineInfo, printTable, writeResults } from './lib/report.js';
import {
  CorpusLoader,
  createTenant,
  databaseSizeMb,
  dropVectorIndex,
  finishLoad,
  planDocuments,
  type PlannedDoc,
  type Tenant,
} from './search/corpus.js';
import { startSearchDaemon } from './search/daemon.js';
import { startEmbedStandIn, type EmbedStandIn } from './search/embed-server.js';
import { withMetering, withQueryEmbedding } from './search/extras.js';
import { cpuProbe } from './search/load.js';
import { benchPhase, type Row, type Scope } from './search/phase.js';
import { FLOOR_APP } from './search/sql-floor.js';
import { otherQueries, testQueries } from './search/queries.js';
import { measureRecall } from './search/recall.js';
import { find, printPhase, printRecall, printTargets, ratio, target } from './search/report.js';
import { BENCH_MODEL, createMixture, queryVector } from './search/vectors.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    growth: { type: 'string', default: '10000' },
    million: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '300' },
    requests: { type: 'string', default: '400' },
    'recall-queries': { type: 'string', default: '200' },
    'open-rate': { type: 'string', default: '100' },
    ef: { type: 'string', default: '40,64,100,200' },
    'max-build-min': { type: 'string', default: '20' },
    'skip-extras': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // A streaming replica of the benchmark's cluster (its database name is replaced by the run's):
    // the daemon under test then sends searches to it (DATABASE_READ_URL), as a scaled deployment does.
    'database-read-url': { type: 'string' },
  },
});
const FULL = Number(args.chunks);

/** --database-read-url, pointed at this run's database. */
function readUrlFor(primaryUrl: string): string | undefined {
  if (!args['database-read-url']) return undefined;
  const u = new URL(args['database-read-url']);
  u.pathname = new URL(primaryUrl).pathname;
  return u.toString();
}
const MILLION = Number(args.million);
const log = (line: string) => process.stdout.write(line + '\n');

/** The plan prefix holding `chunks` chunks, starting after `from` documents. */
function slice(plan: PlannedDoc[], from: number, chunks: number): PlannedDoc[] {
  const out: PlannedDoc[] = [];
  let n = 0;
  for (let i = from; i < plan.length && n < chunks; i++) out.push(plan[i]!), (n += plan[i]!.chunks);
  return out;
}

async function scopesOf(sql: Sql, tenant: Tenant, planned: number, size: number): Promise<Scope[]> {
  const counts = new Map(
    (await sql<{ id: string; n: number }[]>`select collection_id as id, count(*)::int as n from chunks group by 1`).map((r) => [r.id, r.n]),
  );
  const all = tenant.collections.map((c) => c.id);
  const big = tenant.collections[0]!;
  // The small tenant: the collection nearest 500 chunks at the full size (as in the BM25 prototype).
  const want = 500 * (planned / FULL);
  const small = [...tenant.collections.slice(1)].sort((a, b) => Math.abs(a.size - want) - Math.abs(b.size - want))[0]!;
  return [
    { name: 'all', collectionIds: all, chunks: size },
    { name: 'big', collectionIds: [big.id], slug: big.slug, chunks: counts.get(big.id) ?? 0 },
    { name: 'small', collectionIds: [small.id], slug: small.slug, chunks: counts.get(small.id) ?? 0 },
  ];
}

async function main(): Promise<number> {
  const machine = machineInfo();
  log(`bench:search on ${machine.cpus} cores (${machine.cpu_model}), load average ${(machine.load_average as number[]).join(' ')}`);
  const sizes = [Number(args.growth), FULL].filter((s, i, a) => s > 0 && s <= FULL && a.indexOf(s) === i);
  const plannedTotal = Math.max(FULL, MILLION);
  const plan = planDocuments(plannedTotal);
  const mixture = createMixture();
  const queries = testQueries()
    .slice(0, Number(args.queries))
    .map((text) => ({ text, vector: queryVector(mixture, text) }));
  const efs = args.ef.split(',').map(Number);
  const requests16 = Number(args.requests);

  let db: BenchDatabase | undefined;
  let sql: Sql | undefined;
  let standIn: EmbedStandIn | undefined;
  let daemon: DaemonProcess | undefined;
  const tmp = await benchTempDir('search');
  const result: Record<string, unknown> = { machine, args, model: BENCH_MODEL, phases: [] as unknown[] };
  const t0 = performance.now();
  try {
    db = await benchDatabase('search');
    // The floor's pool: as the daemon's (createSql, DB_POOL_MAX 10, hnsw.ef_search 100).
    sql = createSql(db.url, { max: 10, applicationName: FLOOR_APP });
    standIn = await startEmbedStandIn(mixture, BENCH_MODEL);
    const tenant = await createTenant(sql, plannedTotal);
    const loader = new CorpusLoader(sql);
    const base = { databaseUrl: db.url, dataDir: tmp.dir, key: tenant.key, readUrl: readUrlFor(db.url) };
    let loadedDocs = 0;
    let fullRows: Row[] = [];
    let fullScopes: Scope[] = [];
    let lastBuild: { chunks: number; ms: number; hnswMs: number; dbMb: number } | undefined;

    for (const size of sizes) {
      log(`\n== ${size.toLocaleString('en-US')} chunks ==`);
      const docs = slice(plan, loadedDocs, size - loader.loadedChunks);
      loadedDocs += docs.length;
      await dropVectorIndex(sql);
      const loaded = await loader.load({ tenant, docs, mixture, model: BENCH_MODEL, log });
      const fin = await finishLoad(sql, BENCH_MODEL);
      const disk = await databaseSizeMb(sql);
      const build = {
        chunks: loader.loadedChunks,
        added: loaded.chunks,
        load_ms: Math.round(loaded.ms),
        chunks_per_s: Math.round(loaded.chunks / (loaded.ms / 1000)),
        fold_ms: Math.round(fin.foldMs),
        vacuum_ms: Math.round(fin.vacuumMs),
        hnsw_ms: Math.round(fin.hnswMs),
        db_mb: disk.total,
      };
      log(
        `  built: +${loaded.chunks} chunks in ${(loaded.ms / 1000).toFixed(0)} s (${build.chunks_per_s}/s, postings by the triggers), fold ${(fin.foldMs / 1000).toFixed(1)} s, vacuum analyze ${(fin.vacuumMs / 1000).toFixed(1)} s, HNSW ${(fin.hnswMs / 1000).toFixed(1)} s; database ${disk.total} MB`,
      );
      lastBuild = { chunks: loaded.chunks, ms: loaded.ms + fin.foldMs + fin.vacuumMs, hnswMs: fin.hnswMs, dbMb: disk.total };
      const allScopes = await scopesOf(sql, tenant, plannedTotal, loader.loadedChunks);
      const full = size === FULL;
      // The growth point skips the big-collection scope (its curve is the all-collections one).
      const scopes = full ? allScopes : allScopes.filter((s) => s.name !== 'big');
      log(
        `  scopes: all ${allScopes[0]!.chunks} chunks in ${tenant.collections.length} collections; big ${allScopes[1]!.chunks}; small ${allScopes[2]!.chunks}`,
      );

      daemon = await startSearchDaemon({ ...base, provider: { kind: 'ollama', host: standIn.url, model: BENCH_MODEL }, label: `p${size}` });
      const rows = await benchPhase({
        sql,
        baseUrl: daemon.url!,
        key: tenant.key,
        daemonCpu: cpuProbe(sql, 'docsift', daemon.pid),
        floorCpu: cpuProbe(sql, FLOOR_APP),
        queries,
        scopes,
        requests16,
        c16: full ? { all: ['text', 'hybrid', 'vector'], small: ['hybrid'] } : { all: ['hybrid'] },
        openLoopRate: full ? Number(args['open-rate']) : 0,
        embeddedSoFar: () => standIn!.texts,
        log,
      });
      await daemon.stop();
      daemon = undefined;
      log(`  HNSW recall vs exact (all collections, ${Math.min(queries.length, Number(args['recall-queries']))} queries):`);
      // Exact search reads every chunk (~0.65 s CPU at 100k): a subset of the queries keeps it bounded.
      const rq = queries.slice(0, Number(args['recall-queries']));
      const recall = await measureRecall(db.url, rq, allScopes[0]!.collectionIds, full ? efs : [100], log);
      log('  vector channel vs exact (small collection):');
      const recallSmall = await measureRecall(db.url, queries, allScopes[2]!.collectionIds, [100], log);
      printPhase(
        `Latency at ${size.toLocaleString('en-US')} chunks (ms; c = concurrency; SQL = the same functions on a direct pool; cpu = server CPU ms per search: PostgreSQL backends, plus the daemon for HTTP)`,
        rows,
      );
      printRecall(`HNSW recall, all collections, ${size.toLocaleString('en-US')} chunks`, recall.rows, recall.exactP50Ms);
      printRecall(
        `Vector channel recall, small collection (${allScopes[2]!.chunks} chunks; answered by the exact branch)`,
        recallSmall.rows,
        recallSmall.exactP50Ms,
      );
      (result.phases as unknown[]).push({
        size,
        build,
        sizes_mb: disk.relations,
        scopes: scopes.map((s) => ({ name: s.name, chunks: s.chunks, collections: s.collectionIds.length })),
        rows,
        recall,
        recall_small: recallSmall,
      });
      if (full) (fullRows = rows), (fullScopes = scopes);
    }

    // 1M chunks: only if the build fits the time budget and the disk.
    if (lastBuild && MILLION > FULL) {
      const perChunkMs = lastBuild.ms / lastBuild.chunks;
      const estMin = (perChunkMs * (MILLION - FULL) + lastBuild.hnswMs * (MILLION / FULL) * 1.3) / 60_000;
      const estDiskMb = lastBuild.dbMb * (MILLION / FULL);
      const fs = statfsSync(tmp.dir);
      const freeMb = Math.round((fs.bavail * fs.bsize) / 2 ** 20);
      const reason =
        estMin > Number(args['max-build-min'])
          ? `estimated build ${estMin.toFixed(0)} min (load + fold + vacuum at the measured ${Math.round(1000 / perChunkMs)} chunks/s, HNSW build ×13) exceeds the ${args['max-build-min']} min budget`
          : estDiskMb > freeMb * 0.8
            ? `estimated ${Math.round(estDiskMb / 1024)} GB on disk exceeds 80% of the ${Math.round(freeMb / 1024)} GB free`
            : undefined;
      result.million = {
        estimated_build_min: Math.round(estMin),
        estimated_disk_gb: Math.round(estDiskMb / 1024),
        free_disk_gb: Math.round(freeMb / 1024),
        skipped: reason ?? null,
      };
      log(
        `\n1,000,000 chunks: ${reason ? `skipped: ${reason}; estimated ${Math.round(estDiskMb / 1024)} GB on disk` : 'within budget, but this run does not grow past --chunks; pass --chunks 1000000'}`,
      );
    }

    if (!args['skip-extras'] && fullScopes.length) {
      log('\n== with query embedding (built-in USE-lite model in the daemon, cache-cold query texts) ==');
      result.with_query_embedding = await withQueryEmbedding(sql, base, otherQueries(), Math.min(requests16, 300), log);
      log('\n== production middleware: per-user rate limits + request log + plan quota ==');
      result.metering = await withMetering(sql, { ...base, standIn: standIn.url }, queries, fullScopes[0]!.collectionIds, log);
    }

    // Growth of p50 with corpus size.
    const phases = result.phases as { size: number; rows: Row[]; recall: { rows: { efSearch: number; recall10: number }[] } }[];
    printTable(
      'Growth (all collections, concurrency 1; ms)',
      [
        'chunks',
        'text-channel SQL p50',
        'vector-channel SQL p50',
        'hybrid SQL p50',
        'hybrid HTTP p50',
        'text HTTP p50',
        'vector HTTP p50',
        'hybrid HTTP c16 p50',
        'recall@10 ef=100',
      ],
      phases.map((p) => [
        p.size,
        find(p.rows, 'all', 'sql', 'text-channel', 1)?.p50,
        find(p.rows, 'all', 'sql', 'vector-channel', 1)?.p50,
        find(p.rows, 'all', 'sql', 'hybrid', 1)?.p50,
        find(p.rows, 'all', 'http', 'hybrid', 1)?.p50,
        find(p.rows, 'all', 'http', 'text', 1)?.p50,
        find(p.rows, 'all', 'http', 'vector', 1)?.p50,
        find(p.rows, 'all', 'http', 'hybrid', 16)?.p50,
        p.recall.rows.find((r) => r.efSearch === 100)?.recall10,
      ]),
    );

    const fullPhase = phases.find((p) => p.size === FULL);
    const targets = fullPhase
      ? (() => {
          const r = fullRows;
          const h16 = find(r, 'all', 'http', 'hybrid', 16);
          const open = find(r, 'all', 'http-open-loop', 'hybrid', 16);
          const rec = fullPhase.recall.rows.find((x) => x.efSearch === 100)?.recall10;
          const okEf = fullPhase.recall.rows.find((x) => x.recall10 >= 0.95)?.efSearch;
          return [
            target('text-channel SQL p50, all 50 collections', find(r, 'all', 'sql', 'text-channel', 1)?.p50, '<=', 20, 'ms'),
            target(
              'text-channel SQL p50, big collection (70%)',
              find(r, 'big', 'sql', 'text-channel', 1)?.p50,
              '<=',
              20,
              'ms',
              'informative',
            ),
            target('hybrid HTTP p50 at c=16', h16?.p50, '<=', 30, 'ms', 'closed loop: p50 ≈ 16 / throughput'),
            target('hybrid HTTP p99 at c=16', h16?.p99, '<=', 100, 'ms'),
            target('hybrid HTTP throughput at c=16', h16?.throughput, '>=', 100, '/s'),
            target(
              `hybrid HTTP p50, open loop offered ${args['open-rate']}/s`,
              open?.p50,
              '<=',
              30,
              'ms',
              `informative; achieved ${open?.throughput ?? '?'}/s`,
            ),
            target(
              `hybrid HTTP p99, open loop offered ${args['open-rate']}/s`,
              open?.p99,
              '<=',
              100,
              'ms',
              `informative; achieved ${open?.throughput ?? '?'}/s`,
            ),
            ...(['text', 'hybrid', 'vector'] as const).map((m) =>
              target(
                `HTTP p50 / SQL p50, ${m}, c=1`,
                ratio(find(r, 'all', 'http', m, 1)?.p50, find(r, 'all', 'sql', m, 1)?.p50),
                '<=',
                1.3,
                '×',
              ),
            ),
            target(
              'idle-box capacity estimate, hybrid (2 cores / server CPU per search)',
              h16?.cpuMsPerRequest ? Math.round(2000 / h16.cpuMsPerRequest) : undefined,
              '>=',
              100,
              '/s',
              'informative: excludes the load generator',
            ),
            target(
              'HNSW recall@10 at ef_search 100',
              rec,
              '>=',
              0.95,
              '',
              okEf === undefined ? 'no swept ef_search reaches 0.95' : `lowest swept ef_search reaching 0.95: ${okEf}`,
            ),
          ];
        })()
      : [];
    if (targets.length) printTargets(targets);
    result.targets = targets;
    result.load_average_end = machineInfo().load_average;
    result.total_s = Math.round((performance.now() - t0) / 1000);
    log(
      `\nresults: ${writeResults('search', result)} (total ${result.total_s} s, load average now ${(result.load_average_end as number[]).join(' ')})`,
    );
    return 0;
  } finally {
    await daemon?.stop().catch(() => {});
    await standIn?.close().catch(() => {});
    await sql?.end({ timeout: 5 }).catch(() => {});
    if (db && !args.keep) await db.drop().catch((err: unknown) => log(`could not drop ${db!.name}: ${String(err)}`));
    else if (db) log(`kept database ${db.name}: ${db.url}`);
    await tmp.remove().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
