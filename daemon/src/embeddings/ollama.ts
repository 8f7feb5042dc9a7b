import { Ollama } from 'ollama';
import { EmbeddingUnavailableError, l2Normalise, probeOnce, type EmbeddingProvider } from './types.js';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
export const DEFAULT_OLLAMA_MODEL = 'nomic-embed-text';
export const DEFAULT_OLLAMA_BATCH_SIZE = 64;
export const DEFAULT_OLLAMA_TIMEOUT_MS = 60_000;
const PROBE_TEXT = 'dimension probe';

export interface OllamaProviderOptions {
  host?: string;
  model?: string;
  /** Texts per /api/embed request (default 64). */
  batchSize?: number;
  /** Per-request timeout (default 60 s); a timeout counts as "unavailable". */
  timeoutMs?: number;
}

/** Embeddings from an Ollama server's /api/embed via the official client. */
export class OllamaEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'ollama';
  readonly model: string;
  readonly host: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly client: Ollama;
  // Aborts every in-flight request on close(), so shutdown never waits 60 s.
  private readonly closing = new AbortController();

  constructor(opts: OllamaProviderOptions = {}) {
    this.host = opts.host ?? DEFAULT_OLLAMA_HOST;
    this.model = opts.model ?? DEFAULT_OLLAMA_MODEL;
    this.batchSize = Math.max(1, opts.batchSize ?? DEFAULT_OLLAMA_BATCH_SIZE);
    this.timeoutMs = Math.max(1, opts.timeoutMs ?? DEFAULT_OLLAMA_TIMEOUT_MS);
    // The client's embed() accepts no AbortSignal, so the timeout is applied
    // by wrapping the fetch it uses.
    const timedFetch: typeof fetch = (input, init) =>
      fetch(input, {
        ...init,
        signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.closing.signal, ...(init?.signal ? [init.signal] : [])]),
      });
    this.client = new Ollama({ host: this.host, fetch: timedFetch });
  }

  private readonly probeDimension = probeOnce(async () => (await this.embedBatch([PROBE_TEXT]))[0]!.length);

  dimension(): Promise<number> {
    return this.probeDimension();
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    // Sequential on purpose: Ollama runs one embed batch at a time per model,
    // parallel requests would only queue there and hit our timeout.
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const vectors = await this.embedBatch(texts.slice(start, start + this.batchSize));
      out.push(...vectors);
    }
    return out;
  }

  async close(): Promise<void> {
    this.closing.abort(new Error('ollama embedding provider closed'));
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    if (this.closing.signal.aborted) throw new Error('ollama embedding provider is closed');
    let embeddings: number[][];
    try {
      const res = await this.client.embed({ model: this.model, input, truncate: true });
      embeddings = res.embeddings;
    } catch (err) {
      throw this.mapError(err);
    }
    if (!Array.isArray(embeddings) || embeddings.length !== input.length) {
      throw new Error(`ollama returned ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${input.length} inputs`);
    }
    const dim = embeddings[0]?.length ?? 0;
    if (dim === 0 || embeddings.some((v) => v.length !== dim)) {
      throw new Error(`ollama returned inconsistent embedding dimensions (model ${this.model})`);
    }
    return embeddings.map((v) => l2Normalise(v));
  }

  /** Transient conditions become EmbeddingUnavailableError; the rest (e.g. 404 unknown model) stay plain errors. */
  private mapError(err: unknown): Error {
    const where = `ollama at ${this.host} (model ${this.model})`;
    if (this.closing.signal.aborted) return new Error('ollama embedding provider closed', { cause: err });
    const e = err as { name?: string; status_code?: unknown; message?: string };
    if (typeof e?.status_code === 'number') {
      if (e.status_code >= 500 || e.status_code === 429 || e.status_code === 408) {
        return new EmbeddingUnavailableError(`${where} answered ${e.status_code}: ${e.message}`, { cause: err });
      }
      return new Error(`${where} answered ${e.status_code}: ${e.message}`, { cause: err });
    }
    if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
      return new EmbeddingUnavailableError(`${where} timed out after ${this.timeoutMs} ms`, { cause: err });
    }
    // undici reports refused/reset/DNS failures as TypeError('fetch failed')
    // with the socket error as cause; a truncated/garbled body lands here too.
    if (err instanceof TypeError || err instanceof SyntaxError) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? err.message;
      return new EmbeddingUnavailableError(`${where} unreachable: ${detail}`, { cause: err });
    }
    return err instanceof Error ? err : new Error(String(err));
  }
}
