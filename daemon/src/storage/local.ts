import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { sizeLimiter, type BlobStore, type PutResult } from './types.js';

const SAFE_KEY = /^[a-z0-9][a-z0-9/_.-]{0,200}$/i;

/** Files under DATA_DIR/blobs; written to a temp file and renamed into place, so writes are atomic. */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  constructor(private readonly root: string) {}

  private file(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe blob key ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, body: Readable, opts: { maxBytes: number; contentType: string; headBytes?: number }): Promise<PutResult> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(path.dirname(target), `.tmp-${randomUUID()}`);
    const limiter = sizeLimiter(opts.maxBytes, opts.headBytes ?? 8192);
    try {
      await pipeline(body, limiter.stream, createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { size: limiter.size(), head: limiter.head() };
  }

  async get(key: string): Promise<Readable> {
    const f = this.file(key);
    await stat(f);
    return createReadStream(f);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.file(key));
      return true;
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async presignedUrl(): Promise<string | null> {
    return null;
  }
}
