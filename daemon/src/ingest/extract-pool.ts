import { Worker } from 'node:worker_threads';
import { ExtractionError, type ExtractedText, type ExtractInput } from './extract.js';

interface Pending {
  resolve: (r: ExtractedText) => void;
  reject: (e: Error) => void;
}

/**
 * One long-lived worker thread for extraction. Requests are queued in order; a crashed worker is
 * replaced on the next call, and its in-flight requests fail as transient errors (the job retries).
 */
export class ExtractionWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  private start(): Worker {
    const w = new Worker(new URL('./extract-worker.mjs', import.meta.url), { execArgv: [] });
    w.unref();
    w.on('message', (m: { id: number; ok: boolean; result?: ExtractedText; message?: string; permanent?: boolean }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result!);
      else p.reject(m.permanent ? new ExtractionError(m.message ?? 'extraction failed') : new Error(m.message ?? 'extraction failed'));
      if (!this.pending.size) w.unref();
    });
    w.on('error', (err) => this.fail(w, err));
    w.on('exit', (code) => this.fail(w, new Error(`extraction worker exited with code ${code}`)));
    return w;
  }

  private fail(w: Worker, err: Error): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  extract(input: ExtractInput): Promise<ExtractedText> {
    this.worker ??= this.start();
    const w = this.worker;
    w.ref();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Copy into a transferable buffer: the worker owns it afterwards.
      const data = new Uint8Array(input.data.byteLength);
      data.set(input.data);
      w.postMessage({ id, sourceType: input.sourceType, data, filename: input.filename }, [data.buffer]);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
