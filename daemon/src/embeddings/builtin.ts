import { Worker } from 'node:worker_threads';
import { EmbeddingUnavailableError, type EmbeddingProvider } from './types.js';

export const BUILTIN_MODEL = 'use-lite-512';
export const BUILTIN_DIMENSION = 512;
/**
 * USE-lite has no hard token limit (sinusoidal positions), but the bundled
 * SentencePiece tokenizer is quadratic in input length (it slices the
 * remaining string at every character): ~70 ms for 6k chars, ~470 ms for 18k.
 * 4096 chars is ~2x a 300-word chunk, so normal chunks are never cut.
 */
export const DEFAULT_MAX_INPUT_CHARS = 4096;
export const DEFAULT_BUILTIN_BATCH_SIZE = 32;

export interface BuiltinProviderOptions {
  /** Texts per model call inside the worker (default 32). */
  batchSize?: number;
  /** Longer inputs are cut at a word boundary (default 4096). */
  maxInputChars?: number;
}

/** Cuts text to at most maxChars, preferring the last whitespace boundary. */
export function truncateForModel(text: string, maxChars = DEFAULT_MAX_INPUT_CHARS): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const lastSpace = cut.search(/\s\S*$/);
  // Only back off to a boundary when it does not throw away too much text
  // (e.g. a giant token with no spaces).
  return lastSpace > maxChars * 0.8 ? cut.slice(0, lastSpace) : cut;
}

type WorkerReply =
  | { id: number; ok: true; dim: number; vectors: Float32Array }
  | { id: number; ok: true; backend: string }
  | { id: number; ok: false; message: string };

interface Pending {
  resolve: (reply: WorkerReply & { ok: true }) => void;
  reject: (err: Error) => void;
}

/**
 * Universal Sentence Encoder lite (512-d) running on the tfjs wasm backend in
 * a worker thread, so embedding never stalls the daemon's event loop.
 */
export class BuiltinEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'builtin';
  readonly model = BUILTIN_MODEL;
  readonly configuredDimension = BUILTIN_DIMENSION;
  private readonly batchSize: number;
  private readonly maxInputChars: number;
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(opts: BuiltinProviderOptions = {}) {
    this.batchSize = Math.max(1, opts.batchSize ?? DEFAULT_BUILTIN_BATCH_SIZE);
    this.maxInputChars = Math.max(1, opts.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS);
  }

  async dimension(): Promise<number> {
    return BUILTIN_DIMENSION;
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const prepared = texts.map((t) => truncateForModel(t, this.maxInputChars));
    // The model pads every batch to its longest text, so grouping similar
    // lengths together wastes less compute; results are put back in order.
    const order = prepared.map((_, i) => i).sort((a, b) => prepared[a]!.length - prepared[b]!.length);
    const result: number[][] = new Array(texts.length);
    const batches: Promise<void>[] = [];
    for (let start = 0; start < order.length; start += this.batchSize) {
      const idx = order.slice(start, start + this.batchSize);
      batches.push(
        this.request({ type: 'embed', texts: idx.map((i) => prepared[i]!) }).then((reply) => {
          if (!('vectors' in reply)) throw new Error('builtin worker sent no vectors');
          const { dim, vectors } = reply;
          idx.forEach((target, row) => {
            result[target] = Array.from(vectors.subarray(row * dim, (row + 1) * dim));
          });
        }),
      );
    }
    await Promise.all(batches);
    return result;
  }

  /** Loads the model (if not yet) and reports the tfjs backend in use, e.g. 'wasm'. */
  async backend(): Promise<string> {
    const reply = await this.request({ type: 'info' });
    return 'backend' in reply ? reply.backend : 'unknown';
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('builtin embedding provider closed'));
    if (worker) await worker.terminate();
  }

  private request(msg: { type: 'embed'; texts: string[] } | { type: 'info' }): Promise<WorkerReply & { ok: true }> {
    if (this.closed) return Promise.reject(new Error('builtin embedding provider is closed'));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Keep the process alive only while work is outstanding, so an idle
      // provider never holds up shutdown.
      worker.ref();
      worker.postMessage({ id, ...msg });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // execArgv: [] stops the worker inheriting `--import tsx`; it is plain JS.
    const worker = new Worker(new URL('./builtin-worker.mjs', import.meta.url), { execArgv: [] });
    worker.unref();
    worker.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) p.resolve(reply);
      else p.reject(new Error(`builtin embedding failed: ${reply.message}`));
    });
    const onDeath = (err: Error) => {
      if (this.worker === worker) this.worker = undefined; // next call respawns
      this.failAll(new EmbeddingUnavailableError(`builtin embedding worker died: ${err.message}`, { cause: err }));
    };
    worker.on('error', onDeath);
    worker.on('exit', (code) => onDeath(new Error(`exit code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
  }
}
