// Where a backup lives: a directory, or a prefix in an S3 bucket (`s3://bucket/prefix`, reached with
// the S3_* settings). Both are blob stores (storage/), so a file is written whole or not at all, and
// every file written here gets its size and SHA-256 counted while it streams.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { Config } from '../config.js';
import { LocalBlobStore } from '../storage/local.js';
import { S3BlobStore } from '../storage/s3.js';
import { parseS3Location } from '../storage/s3-location.js';
import type { BlobStore, StoredBlob } from '../storage/types.js';

export interface WrittenFile {
  size: number;
  sha256: string;
}

export interface Repository {
  /** The location as the user wrote it, for messages. */
  readonly location: string;
  /** The directory, for a local repository (pg_restore reads the dump from it in place). */
  readonly dir?: string;
  put(name: string, body: Readable): Promise<WrittenFile>;
  /** A small file already in memory: one write instead of a stream (most stored files are a few KB). */
  putBytes(name: string, bytes: Buffer): Promise<WrittenFile>;
  get(name: string): Promise<Readable>;
  exists(name: string): Promise<boolean>;
  list(prefix: string): AsyncIterable<StoredBlob>;
  close(): void;
}

/** Larger than any file a backup holds: the repository is not where size limits apply. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** A pass-through that hashes what flows through it. */
export function sha256Counter() {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  return { stream, result: (): WrittenFile => ({ size, sha256: hash.digest('hex') }) };
}

export function openRepository(location: string, config: Config): Repository {
  const s3 = parseS3Location(location);
  const store: BlobStore = s3
    ? new S3BlobStore({
        bucket: s3.bucket,
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
      })
    : new LocalBlobStore(path.resolve(location));
  const prefix = s3?.prefix ? `${s3.prefix}/` : '';
  const dirs = new Set<string>();
  return {
    location,
    ...(s3 ? {} : { dir: path.resolve(location) }),
    async put(name, body) {
      const counter = sha256Counter();
      body.on('error', (err) => counter.stream.destroy(err));
      await store.put(prefix + name, body.pipe(counter.stream), { maxBytes: NO_LIMIT, contentType: 'application/octet-stream' });
      return counter.result();
    },
    async putBytes(name, bytes) {
      const written = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      if (s3) {
        await store.put(prefix + name, Readable.from([bytes]), { maxBytes: NO_LIMIT, contentType: 'application/octet-stream' });
        return written;
      }
      // Written to a temporary name and renamed into place, as the local store writes: whole or absent.
      const target = path.join(path.resolve(location), name);
      const dir = path.dirname(target);
      if (!dirs.has(dir)) {
        await mkdir(dir, { recursive: true });
        dirs.add(dir);
      }
      const tmp = path.join(dir, `.tmp-${randomUUID()}`);
      await writeFile(tmp, bytes, { flag: 'wx', mode: 0o600 });
      await rename(tmp, target);
      return written;
    },
    get: (name) => store.get(prefix + name),
    exists: (name) => store.exists(prefix + name),
    async *list(p) {
      for await (const b of store.list(prefix + p)) yield { ...b, key: b.key.slice(prefix.length) };
    },
    close: () => store.close(),
  };
}
