// Day-two operations on BEIR SciFact (5,183 documents, each uploaded as a file with its id in a tag
// and its metadata), embedded by the built-in model (or, --provider stand-in, the 512-d Ollama stand-in):
//   1. `admin backup` while uploads keep coming, then a wipe (database dropped, DATA_DIR removed) and
//      `admin restore` into an empty instance: documents indexed before the backup began that are
//      missing, restored files whose SHA-256 differs from their upload's, and fixed queries (the
//      first 50 test queries × text, vector, hybrid) whose top 10 changed;
//   2. backup time and size beside `pg_dump --format=custom` alone, on the quiet instance, 3 rounds
//      alternating (the target: backup ≤ 2× pg_dump's time);
//   3. export → import of the collection on a fresh instance: same documents (title, tags, metadata)
//      and the same top 10.
// Top 10s are compared per mode through the API, and exactly (the vector index bypassed): HNSW is
// approximate, and pg_restore or an import builds the graph anew, so its answers may differ where the
// stored vectors do not; the index's recall@10 against the exact answers is shown for each copy.
//
//   npm run bench:daytwo [-- --limit-docs 500] [--queries 50] [--rounds 3] [--provider builtin|stand-in]
import { spawn } from 'node:child_process';
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { findPgTool } from '../../daemon/src/backup/pg-tools.js';
import { loadConfig } from '../../daemon/src/config.js';
import { createEmbeddingProvider, embeddingConfigFrom } from '../../daemon/src/embeddings/index.js';
import { startFakeOllama } from '../helpers/fake-ollama-server.js';
import {
  admin,
  blobMismatches,
  exactTopTens,
  recallAt10,
  type Instance,
  newInstance,
  sameTopTens,
  startServe,
  topTens,
  uploadFiles,
  userKey,
} from './day-two/instance.js';
import { apiClient, expectStatus } from './lib/http.js';
import { codeVersion, machineInfo, printTable, writeResults } from './lib/report.js';
import { loadCorpus, loadTestQueries } from './quality/dataset.js';
import { waitForIndexing } from './quality/ingest.js';

const { values: args } = parseArgs({
  options: {
    'limit-docs': { type: 'string' },
    queries: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    provider: { type: 'string', default: 'builtin' },
  },
});
const log = (m: string) => process.stderr.write(`[daytwo] ${m}\n`);

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) total += (await stat(path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))).size;
  return total;
}

async function pgDump(inst: Instance, file: string): Promise<number> {
  const u = new URL(inst.databaseUrl);
  const password = decodeURIComponent(u.password);
  u.password = '';
  const started = performance.now();
  const child = spawn(findPgTool('pg_dump', 15), ['--format=custom', `--file=${file}`, `--dbname=${u}`], {
    env: { ...process.env, PGPASSWORD: password },
    stdio: 'inherit',
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`pg_dump exited ${code}`);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;

async function main(): Promise<void> {
  const docs = loadCorpus().slice(0, args['limit-docs'] ? Number(args['limit-docs']) : undefined);
  const queries = loadTestQueries().slice(0, Number(args.queries));
  // builtin: the default model, in the daemons and (for the exact answers) here; stand-in: the 512-d
  // Ollama stand-in, fast but with near-equal similarities that HNSW navigates poorly.
  const standIn = args.provider === 'stand-in';
  const ollama = await startFakeOllama({ dimension: 512, dense: true });
  const embed: Record<string, string> = standIn
    ? { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'stand-in-dense', WORKER_CONCURRENCY: '2' }
    : { EMBEDDING_PROVIDER: 'builtin', WORKER_CONCURRENCY: '2' };
  const embedder = createEmbeddingProvider(embeddingConfigFrom(loadConfig({ ...process.env, ...embed })));
  const embedQuery = async (text: string) => (await embedder.embed([text]))[0]!;
  const repos = await mkdtemp(path.join(os.tmpdir(), 'docsift-bench-daytwo-repos-'));
  const started = new Date();
  const out: Record<string, unknown> = {
    docs: docs.length,
    queries: queries.length,
    provider: standIn ? 'stand-in (512-d)' : 'builtin',
    machine: machineInfo(),
    code: codeVersion(),
  };
  try {
    // The source instance.
    const src = await newInstance('daytwo_src', embed);
    await startServe(src);
    const key = await userKey(src, `daytwo-${Date.now()}@bench.test`);
    const coll = expectStatus(
      await src.api!<{ uuid: string }>('POST', '/api/v1/collections', { json: { name: 'SciFact' } }),
      201,
      'collection',
    ).body;
    log(`uploading ${docs.length} documents as files`);
    out.upload_ms = Math.round(await uploadFiles(src.api!, coll.uuid, docs));
    out.indexing = await waitForIndexing(src.sql, coll.uuid, { log, intervalMs: 5000 });
    const exactOf = (inst: Instance, collection: string) => exactTopTens(inst, embedQuery, collection, queries);
    const before = { ...(await topTens(src.api!, coll.uuid, queries)), ...(await exactOf(src, coll.uuid)) };
    out.vector_recall_at_10 = { source: recallAt10(before, before, 'vector') };

    // 2. Quiet: backup beside pg_dump, alternating.
    const rounds: { pg_dump_s: number; pg_dump_mb: number; backup_s: number; backup_wall_s: number; backup_mb: number }[] = [];
    for (let i = 0; i < Number(args.rounds); i++) {
      const dumpFile = path.join(repos, `pg_dump-${i}.pgdump`);
      const dumpMs = await pgDump(src, dumpFile);
      const b = await admin(src, ['backup', '--to', path.join(repos, `quiet-${i}`)]);
      if (b.code !== 0) throw new Error(`backup failed: ${b.stderr}`);
      rounds.push({
        pg_dump_s: Math.round(dumpMs / 100) / 10,
        pg_dump_mb: mb((await stat(dumpFile)).size),
        backup_s: b.result.seconds,
        backup_wall_s: Math.round(b.ms / 100) / 10,
        backup_mb: mb(await dirBytes(path.join(repos, `quiet-${i}`))),
      });
      log(`round ${i + 1}: ${JSON.stringify(rounds.at(-1))}`);
      await rm(dumpFile);
      await rm(path.join(repos, `quiet-${i}`), { recursive: true });
    }
    const ratio = median(rounds.map((x) => x.backup_s)) / median(rounds.map((x) => x.pg_dump_s));
    out.backup_vs_pg_dump = { rounds, median_ratio: Math.round(ratio * 100) / 100, target: '≤ 2' };

    // 1. Backup under continuous uploads, wipe, restore.
    const inbox = expectStatus(
      await src.api!<{ uuid: string }>('POST', '/api/v1/collections', { json: { name: 'Inbox' } }),
      201,
      'inbox',
    ).body;
    let stop = false;
    let sent = 0;
    const uploader = (async () => {
      while (!stop) {
        await uploadFiles(src.api!, inbox.uuid, [{ id: `inbox-${sent}`, title: `Inbox ${sent}`, text: docs[sent % docs.length]!.text }], 1);
        sent++;
      }
    })();
    while (sent < 5) await new Promise((r) => setTimeout(r, 50));
    const indexedBefore = (await src.sql<{ id: string }[]>`select id from documents where status = 'indexed'`).map((r) => r.id);
    const sentBefore = sent;
    const busy = await admin(src, ['backup', '--to', path.join(repos, 'busy')]);
    const sentDuring = sent - sentBefore;
    stop = true;
    await uploader;
    if (busy.code !== 0) throw new Error(`backup failed: ${busy.stderr}`);
    await src.wipe();
    const dst = await newInstance('daytwo_restored', embed, false);
    const restore = await admin(dst, ['restore', '--from', path.join(repos, 'busy')]);
    if (restore.code !== 0) throw new Error(`restore failed: ${restore.stderr}`);
    await startServe(dst);
    // Keys are in the restored database: the source's key reads the restored instance.
    dst.api = apiClient(dst.serve!.url!, key);
    const restoredIds = new Set((await dst.sql<{ id: string }[]>`select id from documents`).map((r) => r.id));
    const after = { ...(await topTens(dst.api, coll.uuid, queries)), ...(await exactOf(dst, coll.uuid)) };
    (out.vector_recall_at_10 as Record<string, number>).restored = recallAt10(after, after, 'vector');
    out.restore_under_uploads = {
      uploads_answered_during_backup: sentDuring,
      backup_s: busy.result.seconds,
      backup_mb: mb(await dirBytes(path.join(repos, 'busy'))),
      indexed_before_backup: indexedBefore.length,
      lost: indexedBefore.filter((id) => !restoredIds.has(id)).length,
      files: await blobMismatches(dst),
      restore_s: restore.result.seconds,
      same_top10: sameTopTens(before, after),
    };
    log(JSON.stringify(out.restore_under_uploads));

    // 3. Export → import on a fresh instance.
    const archive = path.join(repos, 'scifact.docsift.tar');
    let t0 = performance.now();
    const res = await fetch(`${dst.serve!.url}/api/v1/collections/${coll.uuid}/export/`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(archive));
    const exportS = (performance.now() - t0) / 1000;
    const imp = await newInstance('daytwo_import', embed);
    await startServe(imp);
    const impKey = await userKey(imp, `daytwo-import-${Date.now()}@bench.test`);
    t0 = performance.now();
    const r = await fetch(`${imp.serve!.url}/api/v1/collections/import/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${impKey}`, 'content-type': 'application/x-tar' },
      body: await openAsBlob(archive),
    });
    const imported = (await r.json()) as { collection: { uuid: string }; imported: number; failed: unknown[] };
    if (r.status !== 200) throw new Error(`import answered ${r.status}: ${JSON.stringify(imported)}`);
    const importS = (performance.now() - t0) / 1000;
    const indexing = await waitForIndexing(imp.sql, imported.collection.uuid, { log, intervalMs: 5000 });
    const docsOf = async (inst: Instance, collection: string) =>
      new Map(
        (
          await inst.sql<{ title: string; tags: string[]; metadata: { beir_id: string } }[]>`
            select title, tags, metadata from documents where collection_id = ${collection} and deleted_at is null`
        ).map((d) => [d.metadata.beir_id, JSON.stringify([d.title, d.tags, d.metadata])]),
      );
    const [a, b] = [await docsOf(dst, coll.uuid), await docsOf(imp, imported.collection.uuid)];
    const importedTop = {
      ...(await topTens(apiClient(imp.serve!.url!, impKey), imported.collection.uuid, queries)),
      ...(await exactOf(imp, imported.collection.uuid)),
    };
    out.export_import = {
      archive_mb: mb((await stat(archive)).size),
      export_s: Math.round(exportS * 10) / 10,
      import_s: Math.round(importS * 10) / 10,
      processing_s: Math.round(indexing.ms / 100) / 10,
      imported: imported.imported,
      failed: imported.failed.length,
      documents: `${[...a].filter(([id, v]) => b.get(id) === v).length}/${a.size} with the same title, tags and metadata (${b.size} imported)`,
      same_top10: sameTopTens(before, importedTop),
    };
    (out.vector_recall_at_10 as Record<string, number>).imported = recallAt10(importedTop, importedTop, 'vector');
    log(JSON.stringify(out.export_import));
    await dst.wipe();
    await imp.wipe();
  } finally {
    await embedder.close();
    await ollama.close();
    await rm(repos, { recursive: true, force: true });
  }
  out.started = started.toISOString();
  printTable(
    'day two',
    ['measure', 'value'],
    Object.entries(out).map(([k, v]) => [k, JSON.stringify(v)]),
  );
  log(`results: ${writeResults('daytwo', out)}`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
