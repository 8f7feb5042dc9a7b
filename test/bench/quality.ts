// `npm run bench:quality`: retrieval quality on BEIR SciFact (300 test queries), NFCorpus or XQuAD-R
// in five languages, docsift against LanceDB and Orama (with their tokenizers for the dataset's
// language) on the same chunks and the same embeddings. See test/bench/quality/README.md.
//
//   npm run bench:quality [-- --limit-docs 500] [--keep] [--provider ollama|openai] [--no-peers] [--no-sweep] [--no-floor]
//                         [--bm25-grid] [--bm25 0.9:0.4,1.2:0.75] [--dataset xquad-r-zh] [--language simple]
//   QUALITY_DB_URL=… QUALITY_KEY=… npm run bench:quality     (reuse a database kept with --keep)
//   npm run bench:quality -- --size-only   (bytes per chunk and text nDCG@10 only, with an instant 512-d embedder)
//   npm run bench:quality -- --typos       (also the test queries with one seeded misspelling each)
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { defaultFusion, modelDefaults } from '../../daemon/src/search/fusion-defaults.js';
import { benchDatabase, benchTempDir, repoRoot, type BenchDatabase, type DaemonProcess } from './lib/env.js';
import { apiClient, expectStatus, type ApiCall } from './lib/http.js';
import { percentiles } from './lib/metrics.js';
import { machineInfo, writeResults } from './lib/report.js';
import { exportChunks } from './quality/chunks.js';
import {
  beirIdFromTags,
  DATASETS,
  findDataset,
  loadCorpus,
  loadOtherQueries,
  loadTestQueries,
  restrictTo,
  subsetCorpus,
  type DatasetName,
  type TestQuery,
} from './quality/dataset.js';
import { DEFAULT_GRID, parseGrid, printGrid, runBm25Grid, type GridPoint } from './quality/bm25-grid.js';
import { runFloorStudy } from './quality/floor.js';
import { createCollection, uploadCorpus, waitForIndexing } from './quality/ingest.js';
import { dedupeDocs, scoreRun } from './quality/metrics.js';
import { runHttp, runInProcess, type OurConfig, type RunOutput } from './quality/ours.js';
import { loadOffTopic, noResultShare, printOffTopic, runOffTopic } from './quality/off-topic.js';
import { runEvidenceStudy } from './quality/evidence.js';
import { runTypoWeights } from './quality/typo-study.js';
import { runTypoStudy } from './quality/typos.js';
import type { Peer, PeerChunk } from './quality/peers/types.js';
import { evaluateTargets, printResults, printSweep, printTargets, relevanceTargets, type ResultRow } from './quality/report.js';
import { createUserKey, keepDatabase, startInProcess, startServe, type DaemonEnvOptions, type InProcess } from './quality/setup.js';
import { measureSize, sizeTarget } from './quality/size.js';
import { startFakeOllama } from '../helpers/fake-ollama-server.js';

// LanceDB's native logger reads this once, when the module loads (it is imported lazily below).
process.env.LANCEDB_LOG ??= 'error';

const SWEEP_RATIOS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7];

const { values: args } = parseArgs({
  options: {
    'limit-docs': { type: 'string' },
    keep: { type: 'boolean', default: false },
    provider: { type: 'string', default: process.env.QUALITY_PROVIDER ?? 'builtin' },
    'no-peers': { type: 'boolean', default: false },
    'no-sweep': { type: 'boolean', default: false },
    'no-floor': { type: 'boolean', default: false },
    'title-in-content': { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '2' },
    'worker-concurrency': { type: 'string', default: process.env.QUALITY_WORKER_CONCURRENCY ?? '4' },
    strict: { type: 'boolean', default: false },
    'bm25-grid': { type: 'boolean', default: false },
    bm25: { type: 'string' },
    'size-only': { type: 'boolean', default: false },
    dataset: { type: 'string', default: 'scifact' },
    'stand-in': { type: 'string' },
    language: { type: 'string' },
    typos: { type: 'boolean', default: false },
    'evidence-study': { type: 'boolean', default: false },
    'typo-study': { type: 'boolean', default: false },
    modes: { type: 'string', default: 'text,vector,hybrid' },
    'no-off-topic': { type: 'boolean', default: false },
  },
});
if (!Object.hasOwn(DATASETS, args.dataset)) throw new Error(`--dataset must be one of ${Object.keys(DATASETS).join(', ')}`);
const dataset = DATASETS[args.dataset as keyof typeof DATASETS];
const datasetDir = process.env.QUALITY_DATASET_DIR ?? findDataset(dataset.dir);
// The collection's language: the dataset's (xquad-r-zh: chinese), or --language to measure another
// configuration on the same set (e.g. `simple`).
const language = args.language ?? dataset.language;
// --stand-in random|dense: the Ollama stand-in at 512 dimensions under a model name outside the
// defaults table, with random vectors (a model that knows nothing) or its dense bag of words.
const standIn = args['stand-in'];
if (standIn !== undefined && standIn !== 'random' && standIn !== 'dense') throw new Error('--stand-in must be random or dense');
if (standIn) {
  args.provider = 'ollama';
  process.env.OLLAMA_MODEL = `stand-in-${standIn}`;
}
// --size-only: what the database costs per chunk, in minutes instead of the built-in model's half
// hour. Vectors come from the Ollama stand-in at the built-in model's 512 dimensions (same bytes per
// vector and per HNSW entry); only the text channel, which does not depend on them, is scored.
const sizeOnly = args['size-only'];
if (sizeOnly)
  Object.assign(args, { provider: 'ollama', 'no-peers': true, 'no-sweep': true, 'no-floor': true, 'no-off-topic': true, typos: false });
const bm25Points = args.bm25 || args['bm25-grid'] ? parseGrid(args.bm25 ?? DEFAULT_GRID) : [];
const provider = args.provider === 'ollama' || args.provider === 'openai' ? args.provider : 'builtin';
if (args.provider !== provider) throw new Error(`--provider must be builtin, ollama or openai, not ${args.provider}`);
// A real server of the user's (OpenAI, vLLM, TEI…): EMBEDDING_MODEL, OPENAI_API_KEY and EMBEDDING_* come from the environment too.
if (provider === 'openai' && !process.env.OPENAI_BASE_URL) throw new Error('--provider openai needs OPENAI_BASE_URL (and EMBEDDING_MODEL)');
const searchConcurrency = Number(args.concurrency);
const log = (line: string) => process.stdout.write(line + '\n');
const ms = (x: number) => `${(x / 1000).toFixed(1)} s`;

async function main(): Promise<number> {
  const reuseUrl = process.env.QUALITY_DB_URL;
  const reuseKey = process.env.QUALITY_KEY;
  if (!!reuseUrl !== !!reuseKey) throw new Error('set both QUALITY_DB_URL and QUALITY_KEY to reuse an ingested database');
  const fullCorpus = loadCorpus(datasetDir);
  const allQueries = loadTestQueries(datasetDir);
  const limitDocs = args['limit-docs'] ? Number(args['limit-docs']) : undefined;
  let { docs, queries } = limitDocs ? subsetCorpus(fullCorpus, allQueries, limitDocs) : { docs: fullCorpus, queries: allQueries };

  const tmp = await benchTempDir('quality');
  let db: BenchDatabase | undefined;
  let serve: DaemonProcess | undefined;
  let inproc: InProcess | undefined;
  const peers: Peer[] = [];
  const t0 = performance.now();
  const fakeEmbedder =
    sizeOnly || standIn ? await startFakeOllama({ dimension: 512, dense: standIn !== 'random', random: standIn === 'random' }) : undefined;
  if (fakeEmbedder) process.env.OLLAMA_HOST = fakeEmbedder.url;
  try {
    const databaseUrl = reuseUrl ?? (db = await benchDatabase('quality')).url;
    const envOpts: DaemonEnvOptions = { databaseUrl, dataDir: tmp.dir, provider, workerConcurrency: Number(args['worker-concurrency']) };
    serve = await startServe(envOpts);
    log(`daemon (serve + worker, EMBEDDING_PROVIDER=${provider}) at ${serve.url}, log ${serve.logFile}; collection language ${language}`);
    const key = reuseKey ?? (await createUserKey(envOpts, `quality-${Date.now()}@bench.test`));
    const api = apiClient(serve.url!, key);
    const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    let collection: { uuid: string; slug: string };
    const ingest: Record<string, unknown> = { reused: !!reuseUrl, title_in_content: args['title-in-content'] };
    try {
      if (reuseUrl) {
        collection = await findCollection(api);
        const indexing = await waitForIndexing(sql, collection.uuid, { log });
        const ids = new Set(
          (
            await sql<
              { tags: string[] }[]
            >`select tags from documents where collection_id = ${collection.uuid} and status = 'indexed' and deleted_at is null`
          )
            .map((r) => beirIdFromTags(r.tags)!)
            .filter(Boolean),
        );
        ({ docs, queries } = restrictTo(fullCorpus, allQueries, ids));
        Object.assign(ingest, { indexed: indexing.indexed, failed: indexing.failed, chunks: indexing.chunks });
        log(`reusing ${ids.size} indexed documents (${indexing.chunks} chunks) in "${collection.slug}"`);
      } else {
        collection = await createCollection(api, dataset.title, language);
        log(`uploading ${docs.length} documents through POST /api/v1/collections/{uuid}/documents …`);
        const uploadMs = await uploadCorpus(api, collection.uuid, docs, { log, titleInContent: args['title-in-content'] });
        log(`uploaded in ${ms(uploadMs)}; waiting for the worker to extract, chunk and embed …`);
        const indexing = await waitForIndexing(sql, collection.uuid, { log });
        log(
          `indexed ${indexing.indexed} documents, ${indexing.chunks} chunks, ${indexing.failed} failed, in ${ms(indexing.ms)} after upload`,
        );
        if (indexing.failed) log(`WARNING: ${indexing.failed} documents failed to index; their queries still count`);
        Object.assign(ingest, {
          upload_ms: Math.round(uploadMs),
          indexing_ms: Math.round(indexing.ms),
          indexed: indexing.indexed,
          failed: indexing.failed,
          chunks: indexing.chunks,
          chunks_per_s: Math.round((indexing.chunks / (indexing.ms / 1000)) * 10) / 10,
        });
      }
    } catch (err) {
      process.stderr.write(`daemon log tail:\n${await serve.logTail(40)}\n`);
      throw err;
    }
    const [{ n: storedChunks } = { n: 0 }] = await sql<{ n: number }[]>`select count(*)::int as n from chunks`;
    const size = await measureSize(sql, storedChunks);
    Object.assign(ingest, { size });
    log(`evaluating ${queries.length} test queries over ${docs.length} documents`);
    inproc = await startInProcess(envOpts, key);
    const model = inproc.daemon.deps.embedder.model;
    const def = defaultFusion(model);
    const defaultLabel = `${def.method}${def.method === 'weighted' ? ` ${def.semanticRatio}` : ''}`;

    // docsift: the three modes through HTTP (nDCG@10, R@50) and in-process (R@100).
    const rows: ResultRow[] = [];
    const mainConfigs: OurConfig[] = [
      { label: 'text (BM25)', mode: 'text' },
      { label: 'vector (HNSW cosine)', mode: 'vector' },
      { label: `hybrid (default: ${defaultLabel})`, mode: 'hybrid' },
    ].filter((c) => (!sizeOnly || c.mode === 'text') && args.modes.split(',').includes(c.mode)) as OurConfig[];
    const inprocNdcg: Record<string, number> = {};
    const httpRuns: Record<string, RunOutput> = {};
    let fallbacks = 0;
    for (const cfg of mainConfigs) {
      const http = await runHttp(api, collection.slug, queries, cfg, searchConcurrency);
      const deep = await runInProcess(inproc.daemon.deps, inproc.caller, collection.slug, queries, cfg, 100);
      const s50 = scoreRun(http.runs, queries, 50);
      const s100 = scoreRun(deep.runs, queries, 100);
      fallbacks += http.fallbacks + deep.fallbacks;
      httpRuns[cfg.mode] = http;
      inprocNdcg[cfg.mode] = s100.ndcg10;
      rows.push({
        system: 'docsift',
        mode: cfg.mode,
        label: cfg.label,
        ndcg10: s50.ndcg10,
        ndcg10_graded: s50.ndcg10Graded,
        recall50: s50.recall,
        recall100: s100.recall,
        p50Ms: percentiles(http.latenciesMs).p50,
        primary: true,
      });
      log(
        `  docsift ${cfg.label}: nDCG@10 ${s50.ndcg10.toFixed(3)}${s50.ndcg10Graded === undefined ? '' : ` (graded ${s50.ndcg10Graded.toFixed(3)})`} (in-process ${s100.ndcg10.toFixed(3)}), R@100 ${s100.recall.toFixed(3)}`,
      );
    }
    if (fallbacks) log(`WARNING: ${fallbacks} hybrid responses fell back to text only (embedding provider unavailable)`);
    const noResult = noResultShare(httpRuns, queries);
    for (const r of noResult) log(`  ${r.mode}: ${r.no_result} of ${r.queries} test queries get no result`);
    const offTopic = args['no-off-topic']
      ? []
      : [await runOffTopic(api, collection.slug, 'hybrid'), await runOffTopic(api, collection.slug, 'text')];

    const floor = args['no-floor']
      ? null
      : await runFloorStudy({
          api,
          deps: inproc.daemon.deps,
          caller: inproc.caller,
          collection: collection.slug,
          testQueries: queries,
          otherQueries: loadOtherQueries(datasetDir),
          datasetTitle: dataset.title,
          defaultFloor: modelDefaults(model).floor.value,
          sweep: !args['no-sweep'],
          concurrency: searchConcurrency,
          log,
        });

    const sweep: { label: string; ndcg10: number; recall50: number; method: string; ratio: number | null; p50Ms: number }[] = [];
    if (!args['no-sweep']) {
      const configs: OurConfig[] = [
        { label: 'rrf (k=60)', mode: 'hybrid', fusion: 'rrf' },
        ...SWEEP_RATIOS.map((r) => ({ label: `weighted ${r}`, mode: 'hybrid' as const, fusion: 'weighted' as const, semanticRatio: r })),
      ];
      for (const cfg of configs) {
        const http = await runHttp(api, collection.slug, queries, cfg, searchConcurrency);
        const s = scoreRun(http.runs, queries, 50);
        sweep.push({
          label: cfg.label,
          ndcg10: s.ndcg10,
          recall50: s.recall,
          method: http.fusion?.method ?? '?',
          ratio: http.fusion?.method === 'weighted' ? http.fusion.semantic_ratio : null,
          p50Ms: percentiles(http.latenciesMs).p50,
        });
        log(`  sweep ${cfg.label}: nDCG@10 ${s.ndcg10.toFixed(3)}`);
      }
    }

    // Peers: the same chunk texts and stored vectors; query vectors from the same model, in-process.
    const peerInfo: Record<string, unknown>[] = [];
    if (!args['no-peers']) {
      const exported = await exportChunks(sql, collection.uuid);
      const chunks: PeerChunk[] = exported.map((c) => ({
        chunkId: c.chunkId,
        doc: c.doc,
        text: args['title-in-content'] ? c.content : `${c.title}\n${c.content}`,
        vector: c.vector,
      }));
      const qvecs = await inproc.daemon.deps.embedder.embed(queries.map((q) => q.text.trim()));
      const { lancePeer } = await import('./quality/peers/lancedb.js');
      const { oramaPeer } = await import('./quality/peers/orama.js');
      const { PEER_LANGUAGES } = await import('./quality/peers/languages.js');
      const peerLanguage = PEER_LANGUAGES[dataset.code];
      peers.push(await lancePeer(chunks, peerLanguage.lance));
      peers.push(
        await oramaPeer(chunks, peerLanguage.orama, { extraHybridWeights: { text: 1 - def.semanticRatio, vector: def.semanticRatio } }),
      );
      for (const peer of peers) {
        log(`  ${peer.name} ${peer.version}: indexed ${chunks.length} chunks in ${ms(peer.indexMs)}`);
        peerInfo.push({ name: peer.name, version: peer.version, setup: peer.setup, index_ms: Math.round(peer.indexMs) });
        const seen = new Set<string>();
        for (const v of peer.variants) {
          const run = await runPeer(v.run, queries, qvecs);
          const s10 = scoreRun(run.runs, queries, 100);
          rows.push({
            system: peer.name,
            mode: v.mode,
            label: v.label,
            ndcg10: s10.ndcg10,
            ndcg10_graded: s10.ndcg10Graded,
            recall100: s10.recall,
            p50Ms: percentiles(run.latenciesMs).p50,
            primary: !seen.has(v.mode),
          });
          seen.add(v.mode);
          log(
            `  ${peer.name} ${v.label}: nDCG@10 ${s10.ndcg10.toFixed(3)}${s10.ndcg10Graded === undefined ? '' : ` (graded ${s10.ndcg10Graded.toFixed(3)})`}, R@100 ${s10.recall.toFixed(3)}`,
          );
        }
      }
    }
    const typoWeights = args['typo-study']
      ? await runTypoWeights({ deps: inproc.daemon.deps, collectionId: collection.uuid, queries, log })
      : null;
    const evidence = args['evidence-study']
      ? await runEvidenceStudy({
          deps: inproc.daemon.deps,
          caller: inproc.caller,
          collection: collection.slug,
          test: queries,
          other: loadOtherQueries(datasetDir),
          offTopic: loadOffTopic(),
          datasetTitle: dataset.title,
          log,
        })
      : null;
    const typos = args.typos
      ? await runTypoStudy({
          api,
          collection: collection.slug,
          clean: queries,
          peers,
          runPeer,
          embed: (texts) => inproc!.daemon.deps.embedder.embed(texts),
          concurrency: searchConcurrency,
          log,
        })
      : null;
    let grid: GridPoint[] = [];
    if (bm25Points.length)
      grid = await runBm25Grid({
        deps: inproc.daemon.deps,
        caller: inproc.caller,
        collection: collection.slug,
        queries,
        points: bm25Points,
        log,
      });
    await sql.end();

    rows.sort(
      (a, b) =>
        order(a.mode) - order(b.mode) || (a.system === 'docsift' ? -1 : b.system === 'docsift' ? 1 : a.system.localeCompare(b.system)),
    );
    printResults(rows, queries.length, docs.length, { name: args.dataset as DatasetName, title: dataset.title });
    if (sweep.length) printSweep(sweep, defaultLabel);
    if (offTopic.length) printOffTopic(offTopic);
    if (grid.length)
      printGrid(
        grid,
        { k1: inproc.daemon.deps.config.BM25_K1, b: inproc.daemon.deps.config.BM25_B },
        rows.filter((r) => r.mode === 'text' && r.system !== 'docsift'),
      );
    const targets = [
      ...evaluateTargets(rows, args.dataset as DatasetName),
      ...relevanceTargets({ noResult, offTopic, typos }),
      sizeTarget(size),
    ];
    printTargets(targets);
    if (docs.length < fullCorpus.length) log(`  (subset of ${docs.length} documents: the targets are meant for the full corpus)`);

    let kept: string | undefined;
    await inproc.close();
    inproc = undefined;
    await serve.stop();
    serve = undefined;
    if (args.keep && db) {
      kept = await keepDatabase(
        db.url,
        `quality_${args.dataset}_${standIn ? `stand-in-${standIn}` : provider}_${docs.length}_${new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').toLowerCase()}`,
      );
      db = undefined;
      log(`\nkept the ingested database; rerun without ingesting:\n  QUALITY_DB_URL='${kept}' QUALITY_KEY='${key}' npm run bench:quality`);
    }
    const file = writeResults('quality', {
      benchmark: 'quality',
      dataset: `${dataset.title} test`,
      started_at: new Date(Date.now() - (performance.now() - t0)).toISOString(),
      duration_s: Math.round((performance.now() - t0) / 1000),
      git_commit: gitCommit(),
      machine: machineInfo(),
      config: {
        provider,
        language,
        stand_in: standIn ?? null,
        model,
        limit_docs: limitDocs ?? null,
        documents: docs.length,
        queries: queries.length,
        default_fusion: def,
        http_limit: 50,
        search_concurrency: searchConcurrency,
        worker_concurrency: envOpts.workerConcurrency,
      },
      ingest,
      results: rows.map((r) => ({ ...r, ndcg10_in_process: r.system === 'docsift' ? inprocNdcg[r.mode] : undefined })),
      fusion_sweep: sweep,
      bm25_grid: grid,
      relevance_floor: floor,
      no_result: noResult,
      off_topic: offTopic,
      typos,
      evidence_study: evidence,
      typo_weights: typoWeights,
      peers: peerInfo,
      targets,
      // The name only: the URL carries the test cluster's password.
      kept_database: kept ? new URL(kept).pathname.slice(1) : null,
    });
    log(`\nresults: ${file}`);
    return args.strict && targets.some((t) => !t.pass) ? 1 : 0;
  } catch (err) {
    if (serve) process.stderr.write(`daemon log tail:\n${await serve.logTail(60).catch(() => '')}\n`);
    throw err;
  } finally {
    for (const p of peers) await p.close().catch(() => {});
    await inproc?.close().catch(() => {});
    await serve?.stop().catch(() => {});
    if (db && !args.keep) await db.drop().catch(() => {});
    else if (db) log(`database kept as ${db.url} (the run did not finish; npm test may sweep it)`);
    await fakeEmbedder?.close();
    await tmp.remove();
  }
}

function order(m: string): number {
  return ['text', 'vector', 'hybrid'].indexOf(m);
}

async function findCollection(api: ApiCall): Promise<{ uuid: string; slug: string }> {
  const r = expectStatus(await api<{ uuid: string; slug: string; name: string }[]>('GET', '/api/v1/collections'), 200, 'list collections');
  // One collection per benchmark database: the only one is the dataset's, whatever its name.
  const c = r.body.find((x) => x.name === dataset.title) ?? (r.body.length === 1 ? r.body[0] : undefined);
  if (!c) throw new Error(`no collection named "${dataset.title}" is visible to QUALITY_KEY`);
  return c;
}

async function runPeer(run: (q: string, v: number[], k: number) => Promise<string[]>, queries: TestQuery[], qvecs: number[][]) {
  const runs = new Map<string, string[]>();
  const latenciesMs: number[] = [];
  for (const [i, q] of queries.entries()) {
    const started = performance.now();
    // 200 chunks, folded to documents: enough for Recall@100 with documents of one or two chunks.
    const ranked = await run(q.text.trim(), qvecs[i]!, 200);
    latenciesMs.push(performance.now() - started);
    runs.set(q.id, dedupeDocs(ranked, 100));
  }
  return { runs, latenciesMs };
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench:quality failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
