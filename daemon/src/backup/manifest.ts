// A backup's table of contents, `manifest.json`, written last: a repository without it holds no
// finished backup. Every other file is named in it with its size and SHA-256, and each stored file
// (original upload) is a line of `blobs.jsonl` with its own.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import type { Repository, WrittenFile } from './repository.js';

export const MANIFEST = 'manifest.json';
export const DATABASE_FILE = 'database.pgdump';
export const BLOBS_FILE = 'blobs.jsonl';
export const SECRET_FILE = 'secrets/signing-secret';
/** Where a stored file `key` is kept in the repository. */
export const blobName = (key: string) => `blobs/${key}`;

export interface FileEntry extends WrittenFile {
  name: string;
}

export interface BlobLine {
  key: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: 'docsift-backup';
  version: 1;
  created_at: string;
  docsift_version: string;
  /** The migrations the database had applied: restore refuses a backup newer than its code. */
  schema: { highest_migration: number; migrations: number[] };
  postgres: { server_version: string };
  /** Where the signing secret came from: SIGNING_SECRET, or the file the daemon generated under DATA_DIR. */
  signing_secret_source: 'env' | 'file';
  documents: number;
  blobs: { count: number; bytes: number; missing_of_deleted_documents: number };
  files: { database: FileEntry; blobs: FileEntry; signing_secret: FileEntry };
}

export function docsiftVersion(): string {
  const pkg = fileURLToPath(new URL('../../package.json', import.meta.url));
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

export async function readAll(stream: Readable, max = 64 * 1024 * 1024): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of stream) {
    size += (part as Buffer).length;
    if (size > max) throw new Error(`file larger than ${max} bytes where a small one was expected`);
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts);
}

/** The manifest of a finished backup; throws saying what is wrong with the repository otherwise. */
export async function readManifest(repo: Repository): Promise<BackupManifest> {
  if (!(await repo.exists(MANIFEST)))
    throw new Error(`${repo.location} holds no finished backup (no ${MANIFEST}): an unfinished backup is never restored`);
  const m = JSON.parse((await readAll(await repo.get(MANIFEST))).toString('utf8')) as BackupManifest;
  if (m.format !== 'docsift-backup') throw new Error(`${repo.location}/${MANIFEST} is not a docsift backup manifest`);
  if (m.version !== 1) throw new Error(`${repo.location} is a docsift backup of format ${m.version}; this docsift reads format 1`);
  return m;
}
