import { createReadStream, createWriteStream, type Dirent } from 'node:fs';
import { access, constants, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { sizeLimiter, StorageConfigError, type BlobStore, type PutResult, type StoredBlob } from './types.js';

const SAFE_KEY = /^[a-z0-9][a-z0-9/_.-]{0,200}$/i;
/** Bodies up to this size are written with one call; larger ones stream to their file. */
const BUFFERED_BYTES = 64 * 1024;

/**
 * Reads `body` until it ends or `limit` bytes have come, passing each chunk to `accept` first (it
 * throws past the size limit). Leaves a longer body paused, unconsumed after what was returned.
 */
function gather(body: Readable, limit: number, accept: (chunk: Buffer) => void): Promise<{ chunks: Buffer[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    let stopWatching = () => {};
    const done = (err: unknown, ended: boolean) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      stopWatching();
      if (err) reject(err);
      else resolve({ chunks, ended });
    };
    const onData = (chunk: Buffer) => {
      try {
        accept(chunk);
      } catch (err) {
        return done(err, false);
      }
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= limit) {
        body.pause();
        done(null, false);
      }
    };
    // finished() also reports a body that failed or closed early, even before we listened.
    stopWatching = finished(body, { writable: false }, (err) => done(err ?? null, !err));
    body.on('data', onData);
  });
}

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
    const dir = path.dirname(target);
    // Listen from the first moment: the body can fail while the directory is being created, before
    // anything else attaches its own listener, and an unheard 'error' would end the process.
    let early: unknown;
    const onEarlyError = (err: unknown) => {
      early ??= err;
    };
    body.on('error', onEarlyError);
    const tmp = path.join(dir, `.tmp-${randomUUID()}`);
    const limiter = sizeLimiter(opts.maxBytes, opts.headBytes ?? 8192);
    try {
      await this.ensureDir(dir);
      if (early) throw early;
      // Most uploads are small: gathered in memory (the limit counted as they arrive) and written
      // with one call, instead of a write stream and a pipeline per file.
      const first = await gather(body, BUFFERED_BYTES, limiter.accept);
      if (first.ended) {
        const data = Buffer.concat(first.chunks);
        const write = () => writeFile(tmp, data, { flag: 'wx', mode: 0o600 });
        await write().catch(async (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
          // The directory went away since it was made (removed by hand): make it again.
          this.dirs.delete(dir);
          await this.ensureDir(dir);
          await write();
        });
      } else {
        // Made again for a long body: it has no second try if the directory went away.
        await mkdir(dir, { recursive: true });
        const file = createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
        for (const chunk of first.chunks) file.write(chunk);
        // pipeline() destroys every stream on failure, closing the temp file's fd.
        await pipeline(body, limiter.stream, file);
      }
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

  /** Directories made by this store (a key's directory is made once, not once per file). */
  private readonly dirs = new Set<string>();

  private async ensureDir(dir: string): Promise<void> {
    if (this.dirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.dirs.add(dir);
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
