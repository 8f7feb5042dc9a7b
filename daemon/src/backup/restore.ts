// Restoring a backup into an empty database and an empty blob store: every file is checked against
// the SHA-256 in the manifest before anything is written, the stored files are copied (each checked
// again), and the database is restored in one transaction (all or nothing), then the signing secret.
import { createWriteStream } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Sql } from '../db/client.js';
import type { BlobStore } from '../storage/types.js';
import { type BackupManifest, type BlobLine, blobName, type FileEntry, readAll, readManifest } from './manifest.js';
import { connectionFor, findPgTool, runPgTool } from './pg-tools.js';
import { formatBytes, type Progress } from './progress.js';
import { type Repository, sha256Counter } from './repository.js';

export interface RestoreOptions {
  repo: Repository;
  /** The target database (empty), on DATABASE_URL or the cluster provisioned under DATA_DIR. */
  databaseUrl: string;
  sql: Sql;
  /** The target store (empty). */
  blobs: BlobStore;
  /** SIGNING_SECRET when set: it must be the backup's. */
  envSecret?: string;
  /** DATA_DIR/signing-secret: written with the backup's secret when SIGNING_SECRET is not set. */
  secretFile: string;
  /** The highest migration this code knows: a backup of a newer schema is refused. */
  highestMigration: number;
  progress: Progress;
  concurrency?: number;
}

export interface RestoreResult {
  location: string;
  created_at: string;
  documents: number;
  blobs: number;
  blob_bytes: number;
  database_bytes: number;
  seconds: number;
}

export class RestoreRefusedError extends Error {}

async function checkEmpty(o: RestoreOptions): Promise<void> {
  const [t] = await o.sql<{ n: number }[]>`
    select count(*)::int as n from pg_class c join pg_namespace s on s.oid = c.relnamespace
     where c.relkind in ('r', 'p') and s.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')`;
  if (t!.n > 0)
    throw new RestoreRefusedError(
      `the target database is not empty (${t!.n} tables): restore into an empty database (a new DATABASE_URL, or a new DATA_DIR for the embedded one)`,
    );
  for await (const b of o.blobs.list('docs/'))
    throw new RestoreRefusedError(`the target file store is not empty (it holds ${b.key}): restore into an empty one`);
}

/** The backup's secret, once it is known not to clash with the one this instance would use. */
async function checkSecret(o: RestoreOptions, m: BackupManifest): Promise<string> {
  const secret = await verified(o.repo, m.files.signing_secret, async (s) => (await readAll(s)).toString('utf8'));
  if (o.envSecret !== undefined && o.envSecret !== secret)
    throw new RestoreRefusedError(
      `SIGNING_SECRET differs from the backup's signing secret, which encrypts its webhook secrets: unset SIGNING_SECRET (restore writes the backup's to ${o.secretFile}) or set it to the backup's (${m.files.signing_secret.name} in the backup)`,
    );
  const present = (await readFile(o.secretFile, 'utf8').catch(() => undefined))?.trim();
  if (o.envSecret === undefined && present !== undefined && present !== secret)
    throw new RestoreRefusedError(`${o.secretFile} holds another signing secret: restore into an empty DATA_DIR`);
  return secret;
}

/** Reads a repository file through `use`, failing when its size or SHA-256 differs from the manifest's. */
async function verified<T>(repo: Repository, f: FileEntry, use: (s: Readable) => Promise<T>): Promise<T> {
  const counter = sha256Counter();
  const source = await repo.get(f.name);
  source.on('error', (err) => counter.stream.destroy(err));
  const value = await use(source.pipe(counter.stream));
  const got = counter.result();
  if (got.size !== f.size || got.sha256 !== f.sha256)
    throw new Error(
      `${f.name} in ${repo.location} is damaged: ${got.size} bytes with SHA-256 ${got.sha256}, the manifest says ${f.size} bytes, ${f.sha256}`,
    );
  return value;
}

/** The dump as a local file (in place for a directory repository, else downloaded), checked against the manifest. */
async function localDump(o: RestoreOptions, f: FileEntry, tmp: string): Promise<string> {
  const file = o.repo.dir ? path.join(o.repo.dir, f.name) : path.join(tmp, 'database.pgdump');
  await verified(o.repo, f, (s) => (o.repo.dir ? pipeline(s, devNull()) : pipeline(s, createWriteStream(file, { mode: 0o600 }))));
  return file;
}

const devNull = () =>
  new Writable({
    write(_chunk, _enc, cb) {
      cb();
    },
  });

async function copyBlobs(o: RestoreOptions, m: BackupManifest): Promise<{ count: number; bytes: number }> {
  let count = 0;
  let bytes = 0;
  const copyOne = async (line: BlobLine) => {
    const counter = sha256Counter();
    const source = await o.repo.get(blobName(line.key));
    source.on('error', (err) => counter.stream.destroy(err));
    await o.blobs.put(line.key, source.pipe(counter.stream), {
      maxBytes: Number.MAX_SAFE_INTEGER,
      contentType: 'application/octet-stream',
    });
    const got = counter.result();
    if (got.sha256 !== line.sha256 || got.size !== line.size)
      throw new Error(
        `stored file ${line.key} in ${o.repo.location} is damaged: SHA-256 ${got.sha256}, the backup recorded ${line.sha256}`,
      );
    count++;
    bytes += got.size;
    o.progress.update(`files ${count.toLocaleString('en-US')}/${m.blobs.count.toLocaleString('en-US')} (${formatBytes(bytes)})`);
  };
  await verified(o.repo, m.files.blobs, async (s) => {
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    for await (const text of createInterface({ input: s, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (!text.trim()) continue;
      const p = copyOne(JSON.parse(text) as BlobLine).catch((err: unknown) => {
        failure ??= err;
      });
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
      if (inFlight.size >= (o.concurrency ?? 8)) await Promise.race(inFlight);
      if (failure) throw failure;
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
  });
  return { count, bytes };
}

/** pg_restore's table of contents without the extension comments (only an extension's owner may set them). */
async function restoreList(tool: string, dump: string, tmp: string): Promise<string> {
  const list = runPgTool(tool, ['--list', dump], process.env, 'pipe');
  const text = (await Promise.all([readAll(list.child.stdout!), list.done]))[0].toString('utf8');
  const file = path.join(tmp, 'restore.list');
  await writeFile(
    file,
    text
      .split('\n')
      .filter((l) => !/ COMMENT - EXTENSION /.test(l))
      .join('\n'),
  );
  return file;
}

export async function runRestore(o: RestoreOptions): Promise<RestoreResult> {
  const started = performance.now();
  const m = await readManifest(o.repo);
  if (m.schema.highest_migration > o.highestMigration)
    throw new RestoreRefusedError(
      `the backup was made by a newer docsift (docsift ${m.docsift_version}, migration ${m.schema.highest_migration}; this one knows up to ${o.highestMigration}): restore it with that version or a newer one`,
    );
  await checkEmpty(o);
  const secret = await checkSecret(o, m);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'docsift-restore-'));
  try {
    const dump = await localDump(o, m.files.database, tmp);
    o.progress.note(`database file checked: ${formatBytes(m.files.database.size)}`);
    const files = await copyBlobs(o, m);
    o.progress.note(`files restored: ${files.count.toLocaleString('en-US')} (${formatBytes(files.bytes)})`);
    const [v] = await o.sql<{ major: number }[]>`select current_setting('server_version_num')::int / 10000 as major`;
    const tool = findPgTool('pg_restore', v!.major);
    const db = connectionFor(o.databaseUrl);
    o.progress.update('restoring the database (one transaction)');
    await runPgTool(
      tool,
      [
        '--single-transaction',
        '--exit-on-error',
        '--no-owner',
        '--no-privileges',
        '--no-password',
        `--use-list=${await restoreList(tool, dump, tmp)}`,
        `--dbname=${db.dbname}`,
        dump,
      ],
      db.env,
    ).done;
    // Jobs locked by the backed-up instance's workers are free at once, not after WORKER_STALE_MS.
    await o.sql`select graphile_worker.force_unlock_workers(array(select distinct locked_by from graphile_worker.jobs where locked_by is not null))`;
    await o.sql`delete from worker_heartbeats`;
    if (o.envSecret === undefined) await writeSecret(o.secretFile, secret);
    o.progress.done();
    return {
      location: o.repo.location,
      created_at: m.created_at,
      documents: m.documents,
      blobs: files.count,
      blob_bytes: files.bytes,
      database_bytes: m.files.database.size,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Written whole and linked into place, as the daemon writes a generated secret. */
async function writeSecret(file: string, secret: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, secret, { mode: 0o600 });
  await link(tmp, file).catch(() => {});
  await unlink(tmp).catch(() => {});
}
