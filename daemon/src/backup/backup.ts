// An online, consistent backup: the database as of one snapshot (pg_dump --snapshot), the stored
// files that snapshot's documents reference, and the signing secret, into a repository.
//
// Consistency without stopping uploads: an upload writes its file before its row commits, and a
// file a committed row references is deleted only 7 days after the row stops referencing it
// (purge_blobs, orphan_blobs). So every row in the snapshot has its complete file in the store for
// at least 7 days after the snapshot, and a document uploaded during the backup is either in the
// snapshot with its file or absent from both.
import { PassThrough, Readable, Transform } from 'node:stream';
import type { Sql } from '../db/client.js';
import type { BlobStore } from '../storage/types.js';
import {
  type BackupManifest,
  BLOBS_FILE,
  blobName,
  DATABASE_FILE,
  docsiftVersion,
  type FileEntry,
  MANIFEST,
  SECRET_FILE,
} from './manifest.js';
import { connectionFor, findPgTool, runPgTool } from './pg-tools.js';
import { formatBytes, type Progress } from './progress.js';
import type { Repository } from './repository.js';

export interface BackupOptions {
  /** A pool on DATABASE_URL (the primary, directly: never through a transaction pooler). */
  sql: Sql;
  databaseUrl: string;
  blobs: BlobStore;
  repo: Repository;
  signingSecret: { value: string; source: 'env' | 'file' };
  progress: Progress;
  now: () => Date;
  /** Files copied at once (default 16). */
  concurrency?: number;
}

export interface BackupResult {
  location: string;
  documents: number;
  blobs: number;
  blob_bytes: number;
  database_bytes: number;
  seconds: number;
  /** Files of live documents that were not in the store (nothing should ever be here). */
  missing: string[];
  /** Files whose SHA-256 differs from the one recorded at upload. */
  mismatched: string[];
}

interface BlobRow {
  blob_key: string;
  content_sha256: string | null;
  file_size: string;
  deleted: boolean;
}

/** Files up to this size are read and written whole (one read, one write); larger ones stream. */
const WHOLE_FILE_BYTES = 1024 * 1024;

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

interface SnapshotMeta {
  server_version: string;
  major: number;
  documents: number;
  files: number;
  migrations: number[];
}

type Written = { size: number; sha256: string };

/** The manifest of a backup whose files are all written. */
function manifestOf(
  o: BackupOptions,
  m: SnapshotMeta,
  blobs: BackupManifest['blobs'],
  files: { database: Written; blobs: Written; signing_secret: Written },
): BackupManifest {
  const entry = (name: string, w: Written): FileEntry => ({ name, ...w });
  return {
    format: 'docsift-backup',
    version: 1,
    created_at: o.now().toISOString(),
    docsift_version: docsiftVersion(),
    schema: { highest_migration: Math.max(0, ...m.migrations), migrations: m.migrations },
    postgres: { server_version: m.server_version },
    signing_secret_source: o.signingSecret.source,
    documents: m.documents,
    blobs,
    files: {
      database: entry(DATABASE_FILE, files.database),
      blobs: entry(BLOBS_FILE, files.blobs),
      signing_secret: entry(SECRET_FILE, files.signing_secret),
    },
  };
}

export async function runBackup(o: BackupOptions): Promise<BackupResult> {
  const started = performance.now();
  if (await o.repo.exists(MANIFEST)) throw new Error(`${o.repo.location} already holds a backup: back up into a new directory or prefix`);
  const conn = await o.sql.reserve();
  let dumpChild: ReturnType<typeof runPgTool> | undefined;
  try {
    await conn`begin isolation level repeatable read, read only`;
    const [snap] = await conn<{ snapshot: string }[]>`select pg_export_snapshot() as snapshot`;
    const [meta] = await conn<SnapshotMeta[]>`
      select current_setting('server_version') as server_version,
             current_setting('server_version_num')::int / 10000 as major,
             (select count(*) from documents)::int as documents,
             (select count(*) from documents where blob_key is not null and blob_purged_at is null)::int as files,
             (select coalesce(array_agg(version order by version), '{}') from schema_migrations) as migrations`;
    const m = meta!;
    const db = connectionFor(o.databaseUrl);
    // The whole database (graphile-worker's queue included, so pending documents are processed after
    // a restore), in pg_dump's compressed custom format, as of the snapshot above.
    dumpChild = runPgTool(
      findPgTool('pg_dump', m.major),
      ['--format=custom', `--snapshot=${snap!.snapshot}`, '--no-password', `--dbname=${db.dbname}`],
      db.env,
      'pipe',
    );
    let dumped = 0;
    let copied = 0;
    let copiedBytes = 0;
    const show = () =>
      o.progress.update(
        `database ${formatBytes(dumped)} · files ${copied.toLocaleString('en-US')}/${m.files.toLocaleString('en-US')} (${formatBytes(copiedBytes)})`,
      );
    const counted = dumpChild.child.stdout!.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, cb) {
          dumped += chunk.length;
          show();
          cb(null, chunk);
        },
      }),
    );
    const database = Promise.all([o.repo.put(DATABASE_FILE, counted), dumpChild.done]).then(([written]) => {
      o.progress.note(`database dumped: ${formatBytes(written.size)}`);
      return written;
    });
    const missing: string[] = [];
    const mismatched: string[] = [];
    let missingDeleted = 0;
    let failed = false;
    const lines = new PassThrough();
    const blobsList = o.repo.put(BLOBS_FILE, lines);
    const copyOne = async (r: BlobRow) => {
      if (failed) throw new Error('backup stopped');
      const whole = Number(r.file_size) <= WHOLE_FILE_BYTES;
      let body: Readable | Buffer;
      try {
        body = whole ? await o.blobs.read(r.blob_key) : await o.blobs.get(r.blob_key);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        // A deleted document's file may be purged while the backup runs; its row then restores without it.
        if (r.deleted) missingDeleted++;
        else missing.push(r.blob_key);
        return;
      }
      const name = blobName(r.blob_key);
      const written = Buffer.isBuffer(body) ? await o.repo.putBytes(name, body) : await o.repo.put(name, body);
      if (r.content_sha256 && written.sha256 !== r.content_sha256) mismatched.push(r.blob_key);
      lines.write(`${JSON.stringify({ key: r.blob_key, size: written.size, sha256: written.sha256 })}\n`);
      copied++;
      copiedBytes += written.size;
      show();
    };
    const files = (async () => {
      const cursor = conn<BlobRow[]>`
        select blob_key, content_sha256, file_size, deleted_at is not null as deleted
          from documents where blob_key is not null and blob_purged_at is null order by blob_key`.cursor(500);
      for await (const rows of cursor) await eachLimit(rows, o.concurrency ?? 16, copyOne);
      lines.end();
      return blobsList;
    })();
    // Both read the same snapshot; a failure of either stops the other.
    const [dbFile, blobsFile] = await Promise.all([database, files]).catch((err: unknown) => {
      failed = true;
      dumpChild?.child.kill('SIGTERM');
      lines.destroy(err as Error);
      throw err;
    });
    await conn`commit`;
    const secret = await o.repo.put(SECRET_FILE, Readable.from([Buffer.from(o.signingSecret.value)]));
    const blobs = { count: copied, bytes: copiedBytes, missing_of_deleted_documents: missingDeleted };
    const manifest = manifestOf(o, m, blobs, { database: dbFile, blobs: blobsFile, signing_secret: secret });
    // Written last: its presence is what makes the backup restorable.
    await o.repo.put(MANIFEST, Readable.from([Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)]));
    o.progress.done();
    return {
      location: o.repo.location,
      documents: m.documents,
      blobs: copied,
      blob_bytes: copiedBytes,
      database_bytes: dbFile.size,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      missing,
      mismatched,
    };
  } catch (err) {
    dumpChild?.child.kill('SIGTERM');
    await conn`rollback`.catch(() => {});
    throw err;
  } finally {
    conn.release();
  }
}
