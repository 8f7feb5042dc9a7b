import { createReadStream, createWriteStream, type Dirent } from 'node:fs';
import { access, constants, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { sizeLimiter, StorageConfigError, type BlobStore, type PutResult, type StoredBlob } from './types.js';

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
    // Listen from the first moment: the body can fail while the directory is being created, before
    // pipeline() attaches its own listener, and an unheard 'error' would end the process.
    let early: unknown;
    const onEarlyError = (err: unknown) => {
      early ??= err;
    };
    body.on('error', onEarlyError);
    const tmp = path.join(path.dirname(target), `.tmp-${randomUUID()}`);
    const limiter = sizeLimiter(opts.maxBytes, opts.headBytes ?? 8192);
    try {
      await mkdir(path.dirname(target), { recursive: true });
      if (early) throw early;
      // pipeline() destroys every stream on failure, closing the temp file's fd.
      await pipeline(body, limiter.stream, createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
      await rename(tmp, target);
    } catch (err) {
      body.destroy();
      await rm(tmp, { force: true });
      throw err;
    } finally {
      body.off('error', onEarlyError);
    }
    return { size: limiter.size(), head: limiter.head() };
  }

  /** Every stored file under `prefix`, temp files of unfinished writes included. */
  async *list(prefix: string): AsyncIterable<StoredBlob> {
    const dirs = [path.join(this.root, prefix)];
    for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
        throw err;
      }
      for (const e of entries) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) dirs.push(full);
        else if (e.isFile()) {
          // A file may vanish between the listing and the stat (a purge, a finished write).
          const s = await stat(full).catch(() => null);
          if (s) yield { key: path.relative(this.root, full).split(path.sep).join('/'), modifiedAt: s.mtime };
        }
      }
    }
  }

  async get(key: string): Promise<Readable> {
    const f = this.file(key);
    await stat(f);
    return createReadStream(f);
  }

  async read(key: string): Promise<Buffer> {
    return readFile(this.file(key));
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

  async check(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.W_OK);
    } catch (err) {
      throw new StorageConfigError(`Cannot write stored files under ${this.root} (${(err as Error).message}): check DATA_DIR.`);
    }
  }

  close(): void {}
}
