// `npm run bench:ingest`: ingestion throughput, API latency under ingestion, and memory.
//
// Each run starts the daemon as two processes on a fresh database — `serve --api-only` and
// `worker` — so their peak memory (VmHWM) is measured separately, uploads the same corpus
// through the HTTP API in batches, and waits until nothing is pending. Meanwhile a probe calls
// GET /collections/ and POST /search/ (text mode) every 50 ms; the same probe also runs idle
// before the upload (empty index) and after indexing (full index) for comparison.
//   Run A: EMBEDDING_PROVIDER=builtin, the real offline model.
//   Run B: an instant embedder (the Ollama stand-in) to isolate the pipeline's own overhead.
// Rate limits and metering are off in both: they would refuse (or bill) this load.
// Back-to-back invocations: start the next one at least 100 s after the last ended. The data dirs
// are deleted at the end, and on an ext4 without a journal (as on the CI VM) the next run's uploads
// skip those freed inodes one by one for 60-300 s: up to about 1 CPU-s more for the API.
// Knobs (env): BENCH_SMALL_DOCS (1000), BENCH_LARGE_KB (300,230,160), BENCH_RUNS (A,B),
// BENCH_WORKER_CONCURRENCY (2), BENCH_TIMEOUT_S per run (1200), BENCH_IDLE_S (10),
// BENCH_LOG_LEVEL (warn), BENCH_WORKER_PROF=dir (a CPU profile of the worker), BENCH_API_PROF=dir (of the API process),
// BENCH_NODE_ARGS='--flag …' (extra node/V8 flags for both daemon processes), BENCH_TIMELINE=1 (busy cores, CPU by process and chunks indexed per 250 ms, to find idle stretches),
// BENCH_DAEMON_CWD=checkout (run that checkout's daemon, e.g. main's, on this cluster: before/after back to back), BENCH_KEEP=1 (keep the daemons' logs and data dir)
// and BENCH_TEXT=xquad-r-zh|xquad-r-en|… (instead of the generated corpus: BENCH_SMALL_DOCS text files of six of XQuAD-R's
// real paragraphs each, the same paragraphs in every language, into a collection of that language; zh against en is what
// segmentation costs).
import os from 'node:os';
import path from 'node:path';
import { createSql, type Sql } from '../../daemon/src/db/client.js';
import { startFakeOllama } from '../helpers/fake-ollama-server.js';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { buildCorpus, type CorpusFile } from './lib/corpus.js';
import { buildParallelCorpus } from './lib/parallel-corpus.js';
import { benchDatabase, benchTempDir, startDaemonProcess, type DaemonProcess } from './lib/env.js';
import { apiClient, expectStatus, type ApiCall } from './lib/http.js';
import { measureLatency, startLatencyProbe, type Probe, type ProbeStats } from './lib/latency.js';
import { round, rssMb, sampleRss, treeCpuMs, type RssTrace } from './lib/metrics.js';
import { startPgActivity, type PgActivity } from './lib/pg-activity.js';
import { codeVersion, printTable, machineInfo, writeResults, type Cell } from './lib/report.js';
import { startTimeline } from './lib/timeline.js';
import { failedDocuments, uploadCorpus, waitForIndexed, type IndexProgress } from './lib/upload.js';

const envInt = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const SMALL_DOCS = envInt('BENCH_SMALL_DOCS', 1000);
const TEXT = process.env.BENCH_TEXT;
const LARGE_KB = (process.env.BENCH_LARGE_KB ?? '300,230,160').split(',').filter(Boolean).map(Number);
const WORKER_CONCURRENCY = envInt('BENCH_WORKER_CONCURRENCY', 2);
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_S', 1200) * 1000;
const IDLE_MS = envInt('BENCH_IDLE_S', 10) * 1000;
const RUNS = (process.env.BENCH_RUNS ?? 'A,B').split(',').map((s) => s.trim().toUpperCase());
const KEEP = Boolean(process.env.BENCH_KEEP);
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const BATCH_SIZE = 100;
const UPLOAD_CONCURRENCY = 3;
const FAKE_DIMENSION = 512;
const QUERIES = [
  'quarterly budget audit',
  'database migration rollback plan',
  'clinical trial dosage',
  'tenancy agreement clause',
  'night train itinerary',
  'sourdough starter fermentation',
  'overdue invoice',
  'incident latency budget',
];

const cleanups: (() => Promise<unknown>)[] = [];
const log = (m: string) => process.stderr.write(`[bench:ingest] ${m}\n`);

interface RunResult {
  run: string;
  embedder: string;
  note: string;
  worker_concurrency: number;
  documents: { uploaded: number; skipped: number; indexed: number; failed: number; pending: number; chunks: number; retried: number };
  upload: { seconds: number; docs_per_s: number; mb_per_s: number; requests: number; request_ms: unknown };
  indexing: {
    timed_out: boolean;
    seconds_from_upload_start: number;
    seconds_from_first_indexed: number;
    docs_per_s: number;
    chunks_per_s: number;
    docs_per_s_from_first: number;
    chunks_per_s_from_first: number;
  };
  latency: Record<'idle_before' | 'during_ingestion' | 'idle_after', Record<string, ProbeStats>>;
  memory_mb: { api: Omit<RssTrace, 'samples'>; worker: Omit<RssTrace, 'samples'> };
  rss_samples: { api: RssTrace['samples']; worker: RssTrace['samples'] };
  database_size_mb: number;
  /** CPU seconds from the first upload to the end of indexing, and per 1,000 chunks indexed */
  cpu: { worker_s: number; api_s: number; postgres_s: number; worker_pg_s_per_1k_chunks: number; load1_start: number; load1_end: number };
  /** the PostgreSQL cluster over the same window: CPU by process kind, WAL, checkpoints */
  postgres: PgActivity;
  failures: { title: string; error_message: string }[];
}

function probes(api: ApiCall): Probe[] {
  let q = 0;
  return [
    { name: 'GET /collections/', run: async () => (await api('GET', '/api/v1/collections/')).status === 200 },
    {
      name: 'POST /search/ (text)',
      run: async () =>
        (await api('POST', '/api/v1/search/', { json: { query: QUERIES[q++ % QUERIES.length], mode: 'text', limit: 5 } })).status === 200,
    },
  ];
}

async function waitForWorker(sql: Sql, worker: DaemonProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const rows = await sql`select 1 from worker_heartbeats where pid = ${worker.pid}`;
    if (rows.length) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`worker did not register within 60 s:\n${await worker.logTail()}`);
}

const p0chunks = (rows: { n: number }[]) => rows[0]?.n ?? 0;

/**
 * BENCH_PG_STATEMENTS=1 (needs pg_stat_statements in shared_preload_libraries of the test cluster):
 * the statements that took the most time during ingestion, per 1,000 chunks.
 */
async function printTopStatements(sql: Sql, chunks: number): Promise<void> {
  const rows = await sql<{ calls: number; ms: number; query: string }[]>`
    select calls::int, round(total_exec_time)::float8 as ms, regexp_replace(left(query, 110), '[[:space:]]+', ' ', 'g') as query
      from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
     order by total_exec_time desc limit 25`;
  process.stderr.write(`\nTop statements (database time during ingestion, ${chunks} chunks):\n`);
  for (const r of rows)
    process.stderr.write(
      `${String(r.ms).padStart(8)} ms ${String(r.calls).padStart(7)} calls ${((r.ms / Math.max(1, chunks)) * 1000).toFixed(0).padStart(6)} ms/1k chunks  ${r.query}\n`,
    );
}

async function runOnce(id: string, corpus: CorpusFile[], language?: string): Promise<RunResult> {
  const instant = id === 'B';
  const embedder = instant ? `ollama stand-in (instant, ${FAKE_DIMENSION}-d)` : 'builtin (use-lite-512, in-process)';
  log(`run ${id}: ${embedder}`);
  const local: (() => Promise<unknown>)[] = [];
  const defer = (f: () => Promise<unknown>) => (local.unshift(f), cleanups.unshift(f));
  try {
    const db = await benchDatabase(`ingest_${id}`);
    defer(() => db.drop());
    const tmp = await benchTempDir(`ingest-${id}`);
    if (KEEP) log(`run ${id}: keeping ${tmp.dir} (BENCH_KEEP)`);
    // Removed when the whole benchmark ends, not after its run: on an ext4 without a journal (this
    // VM's disk) inodes freed in the last 60-300 s are skipped, one check each, when new files are
    // made, and the next run's 1,500 uploads paid up to about 1 CPU-s for this run's deletions.
    else cleanups.unshift(() => tmp.remove());
    const sql = createSql(db.url, { max: 2 });
    defer(() => sql.end());
    const env: Record<string, string> = {
      DATABASE_URL: db.url,
      DATA_DIR: path.join(tmp.dir, 'data'),
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef0123456789',
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      EMBEDDING_PROVIDER: 'builtin',
      NODE_ENV: 'production',
      RATE_LIMITS_ENABLED: 'false',
      METERING_ENABLED: 'false',
    };
    if (instant) {
      const fake = await startFakeOllama({ dimension: FAKE_DIMENSION });
      defer(() => fake.close());
      Object.assign(env, { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: fake.url });
    }
    const { key } = await createUserWithKey(sql, {
      email: `bench-${id.toLowerCase()}@example.test`,
      newOrganization: 'Bench',
      now: new Date(),
    });
    // BENCH_API_PROF=dir: the API process writes a V8 CPU profile there when it stops.
    const apiProf = process.env.BENCH_API_PROF;
    const apiProc = await startDaemonProcess({
      env,
      nodeArgs: [...NODE_ARGS, ...(apiProf ? ['--cpu-prof', `--cpu-prof-dir=${apiProf}`] : [])],
      args: ['serve', '--api-only'],
      cwd: process.env.BENCH_DAEMON_CWD,
      logFile: path.join(tmp.dir, 'api.log'),
    });
    defer(() => apiProc.stop());
    // BENCH_WORKER_PROF=dir: the worker writes a V8 CPU profile there when it stops.
    const prof = process.env.BENCH_WORKER_PROF;
    const workerProc = await startDaemonProcess({
      env,
      nodeArgs: [...NODE_ARGS, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [])],
      args: ['worker'],
      cwd: process.env.BENCH_DAEMON_CWD,
      logFile: path.join(tmp.dir, 'worker.log'),
    });
    defer(() => workerProc.stop());
    await waitForWorker(sql, workerProc);
    const apiRss = sampleRss(apiProc.pid);
    const workerRss = sampleRss(workerProc.pid);
    const api = apiClient(apiProc.url!, key);
    const coll = expectStatus(
      await api<{ uuid: string }>('POST', '/api/v1/collections/', {
        json: { name: `Bench ingest ${id}`, ...(language ? { language } : {}) },
      }),
      201,
      'create collection',
    );

    log(`run ${id}: idle latency for ${IDLE_MS / 1000} s`);
    const idleBefore = await measureLatency(probes(api), IDLE_MS);
    log(`run ${id}: uploading ${corpus.length} documents`);
    if (process.env.BENCH_PG_STATEMENTS)
      await sql`create extension if not exists pg_stat_statements`.then(() => sql`select pg_stat_statements_reset()`);
    const [pm] = await sql<{ pid: number }[]>`select split_part(pg_read_file('postmaster.pid'), E'\n', 1)::int as pid`;
    const cpuNow = () => ({
      worker: treeCpuMs(workerProc.pid),
      api: treeCpuMs(apiProc.pid),
      pg: treeCpuMs(pm!.pid),
      load1: os.loadavg()[0]!,
    });
    const cpu0 = cpuNow();
    const pgActivity = await startPgActivity(sql, pm!.pid, { worker: workerProc.pid, api: apiProc.pid });
    const probe = startLatencyProbe(probes(api));
    const timeline = process.env.BENCH_TIMELINE
      ? startTimeline(sql, Date.now(), [
          { name: 'worker', pid: workerProc.pid },
          { name: 'api', pid: apiProc.pid },
          { name: 'postgres', pid: pm!.pid },
        ])
      : undefined;
    const upload = await uploadCorpus(api, coll.body.uuid, corpus, {
      batchSize: BATCH_SIZE,
      concurrency: UPLOAD_CONCURRENCY,
      tags: 'bench',
    });
    log(
      `run ${id}: uploaded ${upload.uploaded} (skipped ${upload.skipped.length}) in ${((upload.finishedAt - upload.startedAt) / 1000).toFixed(1)} s; waiting for indexing`,
    );
    const waited = await waitForIndexed(api, sql, {
      timeoutMs: TIMEOUT_MS,
      check: async () => {
        for (const proc of [apiProc, workerProc])
          if (!proc.running) throw new Error(`a daemon process exited during ingestion:\n${await proc.logTail()}`);
      },
      onProgress: (p: IndexProgress, ms) =>
        log(
          `run ${id}: +${Math.round(ms / 1000)} s indexed ${p.indexed}, failed ${p.failed}, pending ${p.pending}, chunks ${p.chunks}; RSS api ${Math.round(rssMb(apiProc.pid) ?? 0)} MB, worker ${Math.round(rssMb(workerProc.pid) ?? 0)} MB`,
        ),
    });
    const cpu1 = cpuNow();
    if (timeline) process.stderr.write(`\n${await timeline.stop()}\n`);
    const pgDone = await pgActivity.stop();
    if (process.env.BENCH_PG_STATEMENTS) await printTopStatements(sql, p0chunks(await sql`select count(*)::int as n from chunks`));
    const during = await probe.stop();
    log(`run ${id}: ${waited.timedOut ? 'TIMED OUT' : 'all processed'}; idle latency on the full index`);
    const idleAfter = await measureLatency(probes(api), IDLE_MS);
    const apiTrace = apiRss.stop();
    const workerTrace = workerRss.stop();

    const p = waited.progress;
    const end = Math.max(p.lastIndexedAt ?? 0, p.lastFailedAt ?? 0) || Date.now();
    const fromUpload = (end - upload.startedAt) / 1000;
    const fromFirst = p.firstIndexedAt ? (end - p.firstIndexedAt) / 1000 : 0;
    const rate = (n: number, s: number) => (s > 0 ? round(n / s, 2) : 0);
    const [extra] = await sql<{ retried: number; mb: number }[]>`
      select (select count(*)::int from documents where attempts > 1) as retried,
             round(pg_database_size(current_database()) / 1048576.0, 1)::float as mb`;
    const failures = p.failed ? await failedDocuments(api) : [];
    const { samples: apiSamples, ...apiMem } = apiTrace;
    const { samples: workerSamples, ...workerMem } = workerTrace;
    return {
      run: id,
      embedder,
      note: instant
        ? 'instant embedder: measures extraction, chunking, queueing and indexing overhead only'
        : 'real offline model: end-to-end throughput',
      worker_concurrency: WORKER_CONCURRENCY,
      documents: {
        uploaded: upload.uploaded,
        skipped: upload.skipped.length,
        indexed: p.indexed,
        failed: p.failed,
        pending: p.pending,
        chunks: p.chunks,
        retried: extra!.retried,
      },
      upload: {
        seconds: round((upload.finishedAt - upload.startedAt) / 1000, 2),
        docs_per_s: rate(upload.uploaded, (upload.finishedAt - upload.startedAt) / 1000),
        mb_per_s: rate(upload.bytes / 2 ** 20, (upload.finishedAt - upload.startedAt) / 1000),
        requests: upload.requests,
        request_ms: upload.requestMs,
      },
      indexing: {
        timed_out: waited.timedOut,
        seconds_from_upload_start: round(fromUpload, 1),
        seconds_from_first_indexed: round(fromFirst, 1),
        docs_per_s: rate(p.indexed, fromUpload),
        chunks_per_s: rate(p.chunks, fromUpload),
        docs_per_s_from_first: rate(p.indexed, fromFirst),
        chunks_per_s_from_first: rate(p.chunks, fromFirst),
      },
      latency: { idle_before: idleBefore, during_ingestion: during, idle_after: idleAfter },
      memory_mb: { api: apiMem, worker: workerMem },
      rss_samples: { api: apiSamples, worker: workerSamples },
      database_size_mb: extra!.mb,
      cpu: {
        worker_s: round((cpu1.worker - cpu0.worker) / 1000, 1),
        api_s: round((cpu1.api - cpu0.api) / 1000, 1),
        postgres_s: round((cpu1.pg - cpu0.pg) / 1000, 1),
        // ms per chunk = s per 1,000 chunks
        worker_pg_s_per_1k_chunks: p.chunks ? round((cpu1.worker - cpu0.worker + cpu1.pg - cpu0.pg) / p.chunks, 2) : 0,
        load1_start: round(cpu0.load1, 1),
        load1_end: round(cpu1.load1, 1),
      },
      postgres: pgDone,
      failures,
    };
  } finally {
    for (const f of local) {
      await f().catch((err: unknown) => log(`cleanup: ${(err as Error).message}`));
      cleanups.splice(cleanups.indexOf(f), 1);
    }
  }
}

function report(results: RunResult[], corpus: CorpusFile[], code: ReturnType<typeof codeVersion>): void {
  const small = corpus.filter((f) => !f.large);
  const large = corpus.filter((f) => f.large);
  const kb = (n: number) => Math.round(n / 1024);
  const types = [...new Set(small.map((f) => f.type))].map((t) => `${t} ${small.filter((f) => f.type === t).length}`).join(', ');
  const out = process.stdout;
  out.write(`\nCorpus: ${small.length} small documents (${kb(small.reduce((s, f) => s + f.data.byteLength, 0))} KB; ${types})\n`);
  out.write(`        + ${large.length} large: ${large.map((f) => `${f.name} ${kb(f.data.byteLength)} KB`).join(', ')}\n`);
  out.write(
    `Uploads: batches of ${BATCH_SIZE} files, ${UPLOAD_CONCURRENCY} requests at once. WORKER_CONCURRENCY=${WORKER_CONCURRENCY}. Daemon as 2 processes (serve --api-only, worker); RATE_LIMITS_ENABLED=false, METERING_ENABLED=false.\n`,
  );
  out.write(`Machine: ${JSON.stringify(machineInfo())}; code at start ${JSON.stringify(code)}\n`);
  for (const r of results) out.write(`Run ${r.run}: ${r.embedder} — ${r.note}\n`);
  printTable(
    'Throughput (rates to the last document indexed; "first" = from the first document indexed)',
    [
      'run',
      'docs',
      'chunks',
      'failed',
      'retried',
      'upload s',
      'index s',
      'docs/s',
      'chunks/s',
      'docs/s first',
      'chunks/s first',
      'timed out',
    ],
    results.map((r) => [
      r.run,
      r.documents.indexed,
      r.documents.chunks,
      r.documents.failed,
      r.documents.retried,
      r.upload.seconds,
      r.indexing.seconds_from_upload_start,
      r.indexing.docs_per_s,
      r.indexing.chunks_per_s,
      r.indexing.docs_per_s_from_first,
      r.indexing.chunks_per_s_from_first,
      r.indexing.timed_out ? 'YES' : 'no',
    ]),
  );
  printTable(
    'CPU seconds from the first upload to the last document indexed (worker, API, the whole PostgreSQL cluster incl. the latency probe), per 1,000 chunks (worker + PostgreSQL), load average at start/end',
    ['run', 'worker s', 'api s', 'postgres s', '(worker+pg) s / 1k chunks', 'load1 start', 'load1 end'],
    results.map((r) => [
      r.run,
      r.cpu.worker_s,
      r.cpu.api_s,
      r.cpu.postgres_s,
      r.cpu.worker_pg_s_per_1k_chunks,
      r.cpu.load1_start,
      r.cpu.load1_end,
    ]),
  );
  const kinds = Object.keys(results[0]?.postgres.cpu_s ?? {});
  printTable(
    'PostgreSQL over the same window: CPU seconds by process kind ("reaped": exited backends and autovacuum workers), WAL written, full-page images, checkpoints',
    ['run', ...kinds, 'WAL MB', 'WAL KB / chunk', 'FPI', 'checkpoints'],
    results.map((r) => [
      r.run,
      ...kinds.map((k) => r.postgres.cpu_s[k]),
      r.postgres.wal_mb,
      r.documents.chunks ? round((r.postgres.wal_mb * 1024) / r.documents.chunks, 1) : 0,
      r.postgres.wal_fpi,
      r.postgres.checkpoints,
    ]),
  );
  printTable(
    'The pipeline alone: CPU seconds of the worker process and of the PostgreSQL backends serving it (by their client ports), per 1,000 chunks; the API and its backends (uploads and the latency probe) beside',
    ['run', 'worker s', 'its backends s', '(worker + its backends) s / 1k chunks', 'api s', 'api backends s'],
    results.map((r) => [
      r.run,
      r.cpu.worker_s,
      r.postgres.backends_by_client_s.worker,
      r.documents.chunks ? round(((r.cpu.worker_s + (r.postgres.backends_by_client_s.worker ?? 0)) * 1000) / r.documents.chunks, 2) : 0,
      r.cpu.api_s,
      r.postgres.backends_by_client_s.api,
    ]),
  );
  printTable(
    'Memory (MB): RSS after startup, peak (VmHWM), RSS at the end',
    ['run', 'process', 'start', 'peak', 'end'],
    results.flatMap((r) =>
      (['api', 'worker'] as const).map((p): Cell[] => [r.run, p, r.memory_mb[p].first, r.memory_mb[p].peak, r.memory_mb[p].last]),
    ),
  );
  printTable(
    'API latency (ms): idle_before = empty index, during_ingestion, idle_after = full index; one call of each every 50 ms',
    ['run', 'phase', 'endpoint', 'n', 'p50', 'p95', 'p99', 'max', 'errors'],
    results.flatMap((r) =>
      (['idle_before', 'during_ingestion', 'idle_after'] as const).flatMap((phase) =>
        Object.entries(r.latency[phase]).map(([name, s]): Cell[] => [r.run, phase, name, s.n, s.p50, s.p95, s.p99, s.max, s.errors]),
      ),
    ),
  );
  for (const r of results) {
    if (r.failures.length)
      out.write(
        `\nRun ${r.run} failures:\n${r.failures
          .slice(0, 20)
          .map((f) => `  ${f.title}: ${f.error_message}`)
          .join('\n')}\n`,
      );
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  // Taken first: the tree may change while the benchmark runs.
  const code = codeVersion();
  const parallel = TEXT ? buildParallelCorpus(TEXT, SMALL_DOCS) : undefined;
  const corpus = parallel?.files ?? buildCorpus({ smallDocs: SMALL_DOCS, largeKb: LARGE_KB });
  log(
    `corpus of ${corpus.length} files built in ${Date.now() - t0} ms${parallel ? ` (${TEXT}, collection language ${parallel.language})` : ''}`,
  );
  const results: RunResult[] = [];
  for (const id of RUNS) {
    if (id !== 'A' && id !== 'B') throw new Error(`unknown run ${id} (A = builtin, B = instant)`);
    results.push(await runOnce(id, corpus, parallel?.language));
  }
  report(results, corpus, code);
  const file = writeResults('ingest', {
    benchmark: 'ingest',
    started_at: new Date(t0).toISOString(),
    machine: machineInfo(),
    code,
    corpus: {
      ...(parallel ? { text: TEXT, language: parallel.language } : { small_docs: SMALL_DOCS, large_kb: LARGE_KB }),
      files: corpus.length,
      bytes: corpus.reduce((s, f) => s + f.data.byteLength, 0),
    },
    results,
  });
  process.stdout.write(`\nResults written to ${path.relative(process.cwd(), file)} (total ${Math.round((Date.now() - t0) / 1000)} s)\n`);
  // Figures of a run cut short are printed but must not pass for a complete benchmark.
  if (results.some((r) => r.indexing.timed_out)) process.exitCode = 1;
}

async function cleanupAll(): Promise<void> {
  for (const f of cleanups.splice(0)) await f().catch(() => {});
}

// Bounded: a run can never hold the machine longer than its timeout plus setup and idle phases.
const watchdog = setTimeout(
  () => {
    log('overall time limit reached; cleaning up');
    void cleanupAll().then(() => process.exit(1));
  },
  RUNS.length * (TIMEOUT_MS + 4 * IDLE_MS + 180_000),
);
watchdog.unref();
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: cleaning up`);
    void cleanupAll().then(() => process.exit(130));
  });
}

main().then(
  async () => {
    await cleanupAll();
    process.exit(process.exitCode ?? 0);
  },
  async (err: unknown) => {
    log(`failed: ${(err as Error).stack ?? err}`);
    await cleanupAll();
    process.exit(1);
  },
);
