import { Worker } from 'node:worker_threads';
import { StoppingError } from '../errors.js';
import { ExtractionError, type ExtractedText, type ExtractInput, type ExtractLimits } from './extract.js';

export interface ExtractionPoolOptions extends ExtractLimits {
  /** threads at most; each extracts one document at a time */
  threads: number;
  /** V8 heap limit of each thread (resourceLimits.maxOldGenerationSizeMb) */
  memoryMb: number;
  /** wall time one document may take once its thread starts on it */
  timeoutMs: number;
  /** an idle thread exits after this long, returning its memory (default 60 s) */
  idleMs?: number;
}

interface Request {
  input: ExtractInput;
  resolve: (r: ExtractedText) => void;
  reject: (e: Error) => void;
}

interface Thread {
  worker: Worker;
  /** resolved once the thread has loaded its parsers (its first message) */
  ready: Promise<void>;
  onReady: () => void;
  /** the document on the thread, and whether the thread has started on it */
  current?: Request & { started: boolean };
  timer?: NodeJS.Timeout;
  idle?: NodeJS.Timeout;
}

type Reply =
  | { type: 'ready' }
  | { type: 'started' }
  | { type: 'done'; result: ExtractedText }
  | { type: 'failed'; message: string; permanent: boolean };

const stopped = () => new StoppingError('the extraction pool is closed: the process is stopping');
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const megabytes = (mb: number) => `${mb.toLocaleString('en-US')} MiB`;

/**
 * Extraction worker threads with per-document limits. Each thread holds ONE document at a time, so
 * when a thread must die the culprit is known:
 * - out of memory (its heap is capped by `memoryMb`) or over `timeoutMs`: that document fails
 *   permanently (the same file would do the same again) and the thread is replaced;
 * - any other death of a thread (a bug, not the input) fails its document as transient: the job
 *   retries it.
 * Documents waiting for a thread are held here, never on a thread, so no other document is ever
 * lost with a thread. Threads are started on demand up to `threads` and idle unreferenced, so they
 * never hold the process open.
 */
export class ExtractionPool {
  private readonly threads = new Set<Thread>();
  private readonly waiting: Request[] = [];
  private replaced = 0;
  private spawned = 0;
  private closed = false;

  constructor(private readonly opts: ExtractionPoolOptions) {}

  extract(input: ExtractInput): Promise<ExtractedText> {
    if (this.closed) return Promise.reject(stopped());
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.pump();
    });
  }

  /**
   * Starts the threads ahead of any document and resolves once each has loaded its parsers (pdf.js
   * and officeparser: about 0.7 s, 0.9 s of CPU, a thread), so the first documents after a job
   * worker starts do not wait for that. Warm threads idle out like any other (`idleMs`) if no
   * document comes.
   */
  async warm(): Promise<void> {
    while (!this.closed && this.threads.size < this.opts.threads) this.spawn();
    await Promise.all([...this.threads].map((t) => t.ready));
  }

  /** For tests and logs: live threads, threads started so far, and how many were replaced after a limit killed them. */
  stats(): { threads: number; spawned: number; waiting: number; replaced: number } {
    return { threads: this.threads.size, spawned: this.spawned, waiting: this.waiting.length, replaced: this.replaced };
  }

  /**
   * Ends every thread at once, a document in the middle of extraction too (a bomb or a 10,000-page
   * file would otherwise hold a stopping process for up to EXTRACT_TIMEOUT_MS): its document, and
   * every one waiting, fails with StoppingError, which is not the document's fault.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const r of this.waiting.splice(0)) r.reject(stopped());
    const all = [...this.threads];
    this.threads.clear();
    for (const t of all) {
      t.onReady();
      this.settle(t, stopped());
    }
    await Promise.all(all.map((t) => t.worker.terminate()));
  }

  private pump(): void {
    while (this.waiting.length) {
      let thread = [...this.threads].find((t) => !t.current);
      if (!thread) {
        if (this.threads.size >= this.opts.threads) return;
        thread = this.spawn();
      }
      this.dispatch(thread, this.waiting.shift() as Request);
    }
  }

  private spawn(): Thread {
    const worker = new Worker(new URL('./extract-worker.mjs', import.meta.url), {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.opts.memoryMb },
    });
    worker.unref();
    let onReady = () => {};
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    const thread: Thread = { worker, ready, onReady };
    this.threads.add(thread);
    this.spawned++;
    worker.on('message', (m: Reply) => this.onReply(thread, m));
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY' && thread.current?.started) {
        this.retire(
          thread,
          new ExtractionError(
            `Extraction ran out of memory: the document needs more than ${megabytes(this.opts.memoryMb)} (EXTRACT_MEMORY_MB).`,
          ),
        );
      } else this.retire(thread, new Error(`the extraction thread failed: ${err.message}`, { cause: err }), false);
    });
    worker.on('exit', (code) => this.retire(thread, new Error(`the extraction thread exited with code ${code}`), false));
    return thread;
  }

  private dispatch(thread: Thread, req: Request): void {
    clearTimeout(thread.idle);
    thread.current = { ...req, started: false };
    thread.worker.ref();
    const { limits } = this;
    // A copy the thread owns afterwards (transferred, not cloned again).
    const data = new Uint8Array(req.input.data.byteLength);
    data.set(req.input.data);
    thread.worker.postMessage({ sourceType: req.input.sourceType, filename: req.input.filename, data, limits }, [data.buffer]);
  }

  private get limits(): ExtractLimits {
    const { maxPdfPages, maxUnpackedBytes, maxImageBytes, maxTextChars } = this.opts;
    return { maxPdfPages, maxUnpackedBytes, maxImageBytes, maxTextChars };
  }

  private onReply(thread: Thread, m: Reply): void {
    if (m.type === 'ready') {
      thread.onReady();
      // A warm thread's idle time counts from here: loading is not idling.
      if (!thread.current && this.threads.has(thread)) this.idleOut(thread);
      return;
    }
    const cur = thread.current;
    if (!cur || !this.threads.has(thread)) return;
    if (m.type === 'started') {
      // The clock starts when the thread has loaded its parsers and begins this document.
      cur.started = true;
      const { timeoutMs } = this.opts;
      thread.timer = setTimeout(() => {
        this.retire(
          thread,
          new ExtractionError(
            `Extraction took longer than ${seconds(timeoutMs)}; the limit is ${seconds(timeoutMs)} (EXTRACT_TIMEOUT_MS).`,
          ),
        );
      }, timeoutMs);
      return;
    }
    this.settle(thread, m.type === 'done' ? m.result : m.permanent ? new ExtractionError(m.message) : new Error(m.message));
    thread.worker.unref();
    if (this.waiting.length) {
      this.pump();
      return;
    }
    this.idleOut(thread);
  }

  /** An idle thread exits after `idleMs`, returning its memory. */
  private idleOut(thread: Thread): void {
    thread.idle = setTimeout(() => this.retire(thread, undefined, false), this.opts.idleMs ?? 60_000);
    thread.idle.unref();
  }

  /** Resolves or rejects the thread's current document, if any. */
  private settle(thread: Thread, outcome: ExtractedText | Error): void {
    const cur = thread.current;
    clearTimeout(thread.timer);
    thread.current = undefined;
    if (!cur) return;
    if (outcome instanceof Error) cur.reject(outcome);
    else cur.resolve(outcome);
  }

  /** Takes a thread out of the pool (once), fails its document with `err`, and stops it. */
  private retire(thread: Thread, err: Error | undefined, replaced = true): void {
    if (!this.threads.delete(thread)) return;
    // warm() waits for no thread that will never load its parsers.
    thread.onReady();
    clearTimeout(thread.idle);
    if (replaced) this.replaced++;
    this.settle(thread, err ?? new Error('the extraction thread stopped'));
    void thread.worker.terminate().catch(() => {});
    this.pump();
  }
}
