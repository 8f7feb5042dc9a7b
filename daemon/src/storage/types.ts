import { Transform, type Readable } from 'node:stream';

export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`blob exceeds ${limit} bytes`);
  }
}

/** The store is misconfigured or unreachable at start-up: the daemon refuses to start, saying which setting to fix. */
export class StorageConfigError extends Error {
  override readonly name = 'StorageConfigError';
}

/**
 * The store failed an operation (unreachable, refused): uploads answer UPLOAD_FAILED, downloads 503.
 * The driver's error is kept as `storageCause`, not `cause`, so that nothing mistakes a refused
 * store connection for the database being down.
 */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  constructor(
    message: string,
    readonly storageCause?: unknown,
  ) {
    super(message);
  }
}

export interface PutResult {
  size: number;
  /** The first bytes of the blob, for magic-byte checks without a second read. */
  head: Buffer;
}

export interface StoredBlob {
  key: string;
  /** When the blob was last written: the orphan sweep leaves young blobs alone. */
  modifiedAt: Date;
}

/** Where original files live. Writes are atomic: a reader never sees a partial blob. */
export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Streams `body` into `key`, failing with BlobTooLargeError as soon as `maxBytes` is crossed (nothing is kept). */
  put(key: string, body: Readable, opts: { maxBytes: number; contentType: string; headBytes?: number }): Promise<PutResult>;
  get(key: string): Promise<Readable>;
  /** The whole blob at once (processing reads small files whole; a stream per file costs more). Missing: ENOENT, as get. */
  read(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Every blob whose key starts with `prefix` (for the orphan sweep), in no particular order. */
  list(prefix: string): AsyncIterable<StoredBlob>;
  /** A presigned URL valid for `expiresInSec`, or null when the daemon must sign and serve the download itself. */
  presignedUrl(key: string, opts: { filename: string; contentType: string; expiresInSec: number }): Promise<string | null>;
  /** Start-up check that the store can be written: throws StorageConfigError naming the setting to fix. */
  check(): Promise<void>;
  close(): void;
}

/**
 * Pass-through that fails with BlobTooLargeError the moment more than `maxBytes` have flowed, and
 * keeps the first `headBytes` for magic-byte checks. `size()` is the byte count so far.
 */
export function sizeLimiter(maxBytes: number, headBytes: number) {
  const head = headCollector(headBytes);
  let size = 0;
  /** Counts a chunk that is about to be kept; throws BlobTooLargeError past the limit. */
  const accept = (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
    head.push(chunk);
  };
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      try {
        accept(chunk);
      } catch (err) {
        return cb(err as Error);
      }
      cb(null, chunk);
    },
  });
  return { stream, accept, size: () => size, head: () => head.head() };
}

/** Collects the first `n` bytes passing through a stream. */
export function headCollector(n: number) {
  const parts: Buffer[] = [];
  let have = 0;
  return {
    push(chunk: Buffer) {
      if (have >= n) return;
      const take = chunk.subarray(0, n - have);
      parts.push(take);
      have += take.length;
    },
    head: () => Buffer.concat(parts),
  };
}
