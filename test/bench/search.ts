// `npm run bench:search`: latency and throughput of POST /api/v1/search/ on a synthetic corpus
// written straight into the tables: 10,000 chunks (growth curve), 100,000, and with --million
// 1,000,000; the identical SQL run directly as the floor, HNSW recall against exact search,
// database bytes per chunk (total and per relation), and the targets. See test/bench/search/README.md.
//
//   npm run bench:search [-- --million] [--chunks 100000] [--growth 10000] [--requests 400] [--keep] [--database-read-url URL]   (all options: README)
import { statfsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { configSchema } from '../../daemon/src/config.js';
import { createSql, type Sql } from '../../daemon/src/db/client.js';
import { databaseBytes, perChunk, printBytesPerChunk, type DatabaseBytes } from './lib/db-size.js';
import { benchDatabase, benchTempDir, runMain, type BenchDatabase, type DaemonProcess } from './lib/env.js';
import { machineInfo, printTable, writeResults } from './lib/report.js';
import { CorpusLoader, createTenant, dropVectorIndex, finishLoad, planDocuments, type PlannedDoc, type Tenant } from './search/corpus.js';
import { startSearchDaemon } from './search/daemon.js';
import { startEmbedStandIn, type EmbedStandIn } from './search/embed-server.js';
import { withMetering, withQueryEmbedding } from './search/extras.js';
import { cpuProbe } from './search/load.js';
import { benchPhase, type Row, type Scope } from './search/phase.js';
import { benchFiltered } from './search/filtered.js';
import { benchFacets } from './search/facets.js';
import { FLOOR_APP } from './search/sql-floor.js';
import { otherQueries, testQueries } from './search/queries.js';
import { measureRecall } from './search/recall.js';
import { find, printPhase, printRecall, printTargets } from './search/report.js';
import { fullTargets, millionTargets, type PhaseSummary } from './search/targets.js';
import { BENCH_MODEL, createMixture, queryVector } from './search/vectors.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    growth: { type: 'string', default: '10000' },
    million: { type: 'boolean', default: false },
    'million-chunks': { type: 'string', default: '1000000' },
    'million-queries': { type: 'string', default: '100' },
    'fold-every': { type: 'string', default: '250000' },
    'index-by': { type: 'string', default: 'folds' },
    queries: { type: 'string', default: '300' },
    requests: { type: 'string', default: '400' },
    'recall-queries': { type: 'string', default: '200' },
    'open-rate': { type: 'string', default: '100' },
    ef: { type: 'string', default: '40,64,100,200' },
    'skip-extras': { type: 'boolean', default: false },
    // Only the filtered scopes at the full size (no unfiltered phase, recall or extras).
    'filtered-only': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // A streaming replica of the benchmark's cluster (its database name is replaced by the run's):
    // the daemon under test then sends searches to it (DATABASE_READ_URL), as a scaled deployment does.
    'database-read-url': { type: 'string' },
  },
});
const FULL = Number(args.chunks);
const MILLION = Number(args['million-chunks']);

/** --database-read-url, pointed at this run's database. */
function readUrlFor(primaryUrl: string): string | undefined {
  if (!args['database-read-url']) return undefined;
  const u = new URL(args['database-read-url']);
  u.pathname = new URL(primaryUrl).pathname;
  return u.toString();
}
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
  // The small tenant: the collection nearest 500 chunks at 100k (as in the BM25 prototype).
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
  const sizes = [Number(args.growth), FULL, args.million ? MILLION : 0]
    .filter((s, i, a) => s > 0 && a.indexOf(s) === i)
    .sort((a, b) => a - b);
  // The plan is the same prefix-stable shuffle whatever the sizes (collection shapes follow 100k).
  const plannedTotal = Math.max(FULL, MILLION);
  const plan = planDocuments(plannedTotal);
  const mixture = createMixture();
  const queries = testQueries()
    .slice(0, Number(args.queries))
    .map((text) => ({ text, vector: queryVector(mixture, text) }));
  const efs = args.ef.split(',').map(Number);
  const requests16 = Number(args.requests);
  const indexBy = args['index-by'];
  if (indexBy !== 'reindex' && indexBy !== 'folds') throw new Error(`--index-by: reindex or folds, not ${indexBy}`);

  let db: BenchDatabase | undefined;
  let sql: Sql | undefined;
  let standIn: EmbedStandIn | undefined;
  let daemon: DaemonProcess | undefined;
  const tmp = await benchTempDir('search');
  const result: Record<string, unknown> = { machine, args, model: BENCH_MODEL, phases: [] as unknown[] };
  const t0 = performance.now();
  // Where the run's time goes: section headers carry the time since the start.
  const elapsed = () => `at ${Math.round((performance.now() - t0) / 1000)} s`;
  try {
    db = await benchDatabase('search');
    // The floor's pool: as the daemon's (createSql, its DB_POOL_MAX, hnsw.ef_search 100).
    sql = createSql(db.url, { max: configSchema.shape.DB_POOL_MAX.parse(process.env.DB_POOL_MAX), applicationName: FLOOR_APP });
    standIn = await startEmbedStandIn(mixture, BENCH_MODEL);
    const tenant = await createTenant(sql, plannedTotal);
    const loader = new CorpusLoader(sql);
    const base = { databaseUrl: db.url, dataDir: tmp.dir, key: tenant.key, readUrl: readUrlFor(db.url) };
    const backendCpu = cpuProbe(sql, FLOOR_APP);
    let loadedDocs = 0;
    let buildSoFarS = 0;
    let buildCpuSoFarS = 0;
    let fullRows: Row[] = [];
    let fullScopes: Scope[] = [];
    const summaries: PhaseSummary[] = [];
    const disks: { label: string; chunks: number; bytes: DatabaseBytes }[] = [];

    for (const size of sizes) {
      log(`\n== ${size.toLocaleString('en-US')} chunks == (${elapsed()})`);
      const full = size === FULL;
      const million = size > FULL;
      const docs = slice(plan, loadedDocs, size - loader.loadedChunks);
      loadedDocs += docs.length;
      await dropVectorIndex(sql);
      const cpu0 = (await backendCpu()) + process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
      const loaded = await loader.load({ tenant, docs, mixture, model: BENCH_MODEL, foldEvery: Number(args['fold-every']), indexBy, log });
      // A 1M graph needs about 1.5 GB to be built in memory (much faster than on disk).
      const fin = await finishLoad(sql, BENCH_MODEL, { hnswMemory: million ? '3GB' : '1GB', indexBy });
      const cpuS = ((await backendCpu()) + process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 - cpu0) / 1000;
      const bytes = await databaseBytes(sql);
      disks.push({ label: size.toLocaleString('en-US'), chunks: loader.loadedChunks, bytes });
      const withoutHnswS = (loaded.ms + fin.foldMs + fin.vacuumMs) / 1000;
      buildSoFarS += withoutHnswS;
      buildCpuSoFarS += cpuS;
      const build = {
        chunks: loader.loadedChunks,
        added: loaded.chunks,
        load_ms: Math.round(loaded.ms),
        beside_it_fold_ms: Math.round(loaded.foldMs),
        chunks_per_s: Math.round(loaded.chunks / (loaded.ms / 1000)),
        final_fold_ms: Math.round(fin.foldMs),
        vacuum_ms: Math.round(fin.vacuumMs),
        hnsw_ms: Math.round(fin.hnswMs),
        build_from_empty_s: Math.round(buildSoFarS + fin.hnswMs / 1000),
        cpu_s: Math.round(cpuS),
        load1: machineInfo().load_average,
        bytes_per_chunk: perChunk(bytes, loader.loadedChunks),
        database_mb: Math.round(bytes.total / 2 ** 20),
      };
      log(
        `  built: +${loaded.chunks} chunks in ${(loaded.ms / 1000).toFixed(0)} s (${build.chunks_per_s}/s${indexBy === 'folds' ? `, postings by the triggers, folds beside it ${(loaded.foldMs / 1000).toFixed(0)} s` : ''}), ${indexBy === 'folds' ? 'final fold' : 'BM25 reindex'} ${(fin.foldMs / 1000).toFixed(1)} s, vacuum analyze ${(fin.vacuumMs / 1000).toFixed(1)} s, HNSW ${(fin.hnswMs / 1000).toFixed(1)} s; CPU ${build.cpu_s} s (loader + its backends, HNSW workers not counted); database ${build.database_mb} MB = ${build.bytes_per_chunk.total} B/chunk; load ${(build.load1 as number[]).join(' ')}`,
      );
      const allScopes = await scopesOf(sql, tenant, plannedTotal, loader.loadedChunks);
      // The growth point skips the big-collection scope (its curve is the all-collections one); at
      // 1M only c=1 is measured (and hybrid at c=16, briefly), on fewer queries.
      const scopes = full ? allScopes : allScopes.filter((s) => s.name !== 'big');
      const phaseQueries = million ? queries.slice(0, Number(args['million-queries'])) : queries;
      log(
        `  scopes: all ${allScopes[0]!.chunks} chunks in ${tenant.collections.length} collections; big ${allScopes[1]!.chunks}; small ${allScopes[2]!.chunks}`,
      );

      daemon = await startSearchDaemon({ ...base, provider: { kind: 'ollama', host: standIn.url, model: BENCH_MODEL }, label: `p${size}` });
      // Filtered scopes (1 % and 30 % of the chunks) beside the unfiltered figures, on the same daemon.
      const filteredArgs = { sql, url: db.url, key: tenant.key, queries: phaseQueries, collectionIds: allScopes[0]!.collectionIds, log };
      const filtered = (baseUrl: string) => benchFiltered({ ...filteredArgs, baseUrl });
      if (args['filtered-only']) {
        if (full || million) result[million ? 'filtered_million' : 'filtered'] = await filtered(daemon.url!);
        await daemon.stop();
        daemon = undefined;
        continue;
      }
      const rows = await benchPhase({
        sql,
        baseUrl: daemon.url!,
        key: tenant.key,
        daemonCpu: cpuProbe(sql, 'docsift', daemon.pid),
        floorCpu: cpuProbe(sql, FLOOR_APP),
        queries: phaseQueries,
        scopes,
        requests16: million ? Math.min(requests16, 200) : requests16,
        c16: full ? { all: ['text', 'hybrid', 'vector'], small: ['hybrid'] } : { all: ['hybrid'] },
        openLoopRate: full ? Number(args['open-rate']) : 0,
        embeddedSoFar: () => standIn!.texts,
        log,
      });
      if (full || million) {
        log(`  filtered scopes (${elapsed()}):`);
        result[million ? 'filtered_million' : 'filtered'] = await filtered(daemon.url!);
      }
      // After the filtered phase, which gives every document its metadata bucket.
      if (full) result.facets = await benchFacets({ sql, baseUrl: daemon.url!, key: tenant.key, queries: phaseQueries, log });
      await daemon.stop();
      daemon = undefined;
      // Exact search reads every chunk (~0.65 s CPU at 100k, ten times that at 1M): a subset of the queries keeps it bounded.
      const rq = queries.slice(0, million ? 20 : Number(args['recall-queries']));
      log(`  HNSW recall vs exact (all collections, ${rq.length} queries; ${elapsed()}):`);
      const recall = await measureRecall(db.url, rq, allScopes[0]!.collectionIds, full ? efs : [100], log);
      log('  vector channel vs exact (small collection):');
      // The small collection is answered by the exact branch (recall 1 by construction, checked
      // here); at 1M an exact scan costs ~1.5 s, so 20 queries check it as well as 100 would.
      const recallSmall = await measureRecall(db.url, million ? rq : phaseQueries, allScopes[2]!.collectionIds, [100], log);
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
      printBytesPerChunk(`Database bytes per chunk at ${size.toLocaleString('en-US')} chunks`, disks.slice(-1));
      (result.phases as unknown[]).push({
        size,
        build,
        bytes: bytes.relations,
        scopes: scopes.map((s) => ({ name: s.name, chunks: s.chunks, collections: s.collectionIds.length })),
        rows,
        recall,
        recall_small: recallSmall,
      });
      summaries.push({
        size,
        rows,
        recall,
        bytesPerChunk: build.bytes_per_chunk.total,
        databaseMb: build.database_mb,
        buildFromEmptyS: build.build_from_empty_s,
      });
      if (million) result.million = { build_from_empty_s: build.build_from_empty_s, build_cpu_s: Math.round(buildCpuSoFarS) };
      if (full) (fullRows = rows), (fullScopes = scopes);
    }

    const last = summaries.at(-1);
    if (!args.million && last) {
      // Without --million: an estimate from the last step, at its build rate and bytes per chunk.
      const build = (
        result.phases as { build: { load_ms: number; final_fold_ms: number; vacuum_ms: number; hnsw_ms: number; added: number } }[]
      ).at(-1)!.build;
      const perChunkMs = (build.load_ms + build.final_fold_ms + build.vacuum_ms) / build.added;
      const estMin = (perChunkMs * MILLION + build.hnsw_ms * (MILLION / last.size) * 1.3) / 60_000;
      const estDiskGb = (last.bytesPerChunk * MILLION) / 2 ** 30;
      const fs = statfsSync(tmp.dir);
      result.million = {
        estimated_build_min: Math.round(estMin),
        estimated_disk_gb: Math.round(estDiskGb * 10) / 10,
        free_disk_gb: Math.round((fs.bavail * fs.bsize) / 2 ** 30),
        skipped: 'not asked for (--million runs it)',
      };
      log(
        `\n${MILLION.toLocaleString('en-US')} chunks: not run (pass --million); estimated build ${estMin.toFixed(0)} min at the measured rate, ${estDiskGb.toFixed(1)} GB on disk`,
      );
    }

    if (!args['skip-extras'] && fullScopes.length) {
      log(`\n== with query embedding (built-in USE-lite model in the daemon, cache-cold query texts) == (${elapsed()})`);
      result.with_query_embedding = await withQueryEmbedding(sql, base, otherQueries(), Math.min(requests16, 300), log);
      log(`\n== production middleware: per-user rate limits + request log + plan quota == (${elapsed()})`);
      result.metering = await withMetering(sql, { ...base, standIn: standIn.url }, queries, fullScopes[0]!.collectionIds, log);
    }

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
        'B/chunk',
      ],
      summaries.map((p) => [
        p.size,
        find(p.rows, 'all', 'sql', 'text-channel', 1)?.p50,
        find(p.rows, 'all', 'sql', 'vector-channel', 1)?.p50,
        find(p.rows, 'all', 'sql', 'hybrid', 1)?.p50,
        find(p.rows, 'all', 'http', 'hybrid', 1)?.p50,
        find(p.rows, 'all', 'http', 'text', 1)?.p50,
        find(p.rows, 'all', 'http', 'vector', 1)?.p50,
        find(p.rows, 'all', 'http', 'hybrid', 16)?.p50,
        p.recall.rows.find((r) => r.efSearch === 100)?.recall10,
        p.bytesPerChunk,
      ]),
    );
    printBytesPerChunk('Database bytes per chunk (total, then each relation of at least 1 MB)', disks);

    const fullSummary = summaries.find((p) => p.size === FULL);
    const millionSummary = summaries.find((p) => p.size > FULL);
    const targets = [
      ...(fullSummary ? fullTargets({ ...fullSummary, rows: fullRows }, Number(args['open-rate'])) : []),
      ...(millionSummary ? millionTargets(millionSummary, (result.million as { build_cpu_s?: number }).build_cpu_s) : []),
    ];
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
    else if (db)
      await db.keep().then(
        (url) => log(`kept database: ${url}`),
        (err: unknown) => log(`could not keep ${db!.name}: ${String(err)}`),
      );
    await tmp.remove().catch(() => {});
  }
}

runMain(main);
