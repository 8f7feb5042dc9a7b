import OpenAI from 'openai';
import { parseRetryAfter } from '../net/retry-after.js';
import { fitToTokens, type FittedInput } from './tokens.js';
import {
  EmbeddingRejectedError,
  EmbeddingUnavailableError,
  l2Normalise,
  probeOnce,
  type EmbeddingProvider,
  type EmbedOptions,
} from './types.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small';
/** OpenAI's limits for /v1/embeddings: inputs per request, tokens per input, tokens per request. */
export const OPENAI_MAX_INPUTS = 2048;
export const OPENAI_MAX_INPUT_TOKENS = 8191;
export const OPENAI_MAX_REQUEST_TOKENS = 300_000;
export const DEFAULT_OPENAI_TIMEOUT_MS = 60_000;
/** Retries of 429/5xx within one call; the processing job's own backoff takes over after these. */
export const DEFAULT_OPENAI_RETRIES = 4;
/** A Retry-After longer than this is not waited out inside a call: the job is retried later instead. */
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;
/** Search queries: one short retry, then hybrid search answers text-only. */
const INTERACTIVE_RETRIES = 1;
const INTERACTIVE_MAX_WAIT_MS = 2_000;
const PROBE_TEXT = 'dimension probe';

export interface OpenAIProviderOptions {
  baseUrl?: string;
  /** Optional: local servers (vLLM, TEI, LM Studio, llama.cpp) often need none. */
  apiKey?: string;
  model?: string;
  /** Sent as `dimensions` (text-embedding-3-* shorten their vectors); checked against every answer. */
  dimensions?: number;
  /** Inputs per request (default 2048, OpenAI's limit; TEI's default is 32). */
  batchSize?: number;
  /** Tokens per request (default 300 000, OpenAI's limit). */
  batchTokens?: number;
  /** Longer inputs are cut to this many tokens, with a warning (default 8191, OpenAI's limit). */
  maxInputTokens?: number;
  timeoutMs?: number;
  retries?: number;
  maxRetryWaitMs?: number;
  /** First backoff step when the server gives no Retry-After (doubles, ±25 % jitter; default 500 ms). */
  backoffBaseMs?: number;
  logger?: { warn(obj: object, msg: string): void };
}

interface PreparedInput extends FittedInput {
  index: number;
}

/**
 * Embeddings from any server speaking OpenAI's POST /v1/embeddings (OpenAI, Azure OpenAI, vLLM,
 * Hugging Face TEI, LM Studio, llama.cpp, LiteLLM), through the official `openai` client.
 */
export class OpenAIEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'openai';
  readonly model: string;
  readonly baseUrl: string;
  readonly configuredDimension?: number;
  private readonly client: OpenAI;
  private readonly o: Required<Omit<OpenAIProviderOptions, 'apiKey' | 'dimensions' | 'logger' | 'baseUrl' | 'model'>>;
  private readonly logger?: OpenAIProviderOptions['logger'];
  private readonly closing = new AbortController();
  /** Error bodies by response, so messages of servers that do not use OpenAI's error shape survive. */
  private readonly errorBodies = new WeakMap<Headers, string>();
  /** Set when the server refused `dimensions` once: later requests leave it out. */
  private dimensionsRefused = false;

  constructor(opts: OpenAIProviderOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
    this.model = opts.model ?? DEFAULT_OPENAI_MODEL;
    this.configuredDimension = opts.dimensions;
    this.logger = opts.logger;
    this.o = {
      batchSize: Math.max(1, opts.batchSize ?? OPENAI_MAX_INPUTS),
      batchTokens: Math.max(1, opts.batchTokens ?? OPENAI_MAX_REQUEST_TOKENS),
      maxInputTokens: Math.max(1, opts.maxInputTokens ?? OPENAI_MAX_INPUT_TOKENS),
      timeoutMs: Math.max(1, opts.timeoutMs ?? DEFAULT_OPENAI_TIMEOUT_MS),
      retries: Math.max(0, opts.retries ?? DEFAULT_OPENAI_RETRIES),
      maxRetryWaitMs: Math.max(0, opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS),
      backoffBaseMs: Math.max(1, opts.backoffBaseMs ?? 500),
    };
    const captureErrors: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!res.ok) this.errorBodies.set(res.headers, await res.clone().text());
      return res;
    };
    this.client = new OpenAI({
      baseURL: this.baseUrl,
      // The client insists on a key; without one the header is removed below.
      apiKey: opts.apiKey || 'unused',
      defaultHeaders: opts.apiKey ? {} : { authorization: null },
      maxRetries: 0, // retried here: Retry-After is capped, and search queries retry less
      timeout: this.o.timeoutMs,
      logLevel: 'off',
      fetch: captureErrors,
    });
  }

  private readonly probeDimension = probeOnce(async () => (await this.embed([PROBE_TEXT]))[0]!.length);

  dimension(): Promise<number> {
    if (this.configuredDimension) return Promise.resolve(this.configuredDimension);
    return this.probeDimension();
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<number[][]> {
    if (!texts.length) return [];
    const prepared = await Promise.all(texts.map(async (t, index) => ({ ...(await fitToTokens(t, this.o.maxInputTokens)), index })));
    const cut = prepared.filter((p) => p.truncatedFrom !== undefined);
    if (cut.length)
      this.logger?.warn(
        { model: this.model, inputs: cut.length, tokens: cut.map((p) => p.truncatedFrom), limit: this.o.maxInputTokens },
        'embedding input longer than the model accepts: truncated',
      );
    const out: number[][] = new Array(texts.length);
    // Sequential: servers queue parallel batches anyway, and rate limits count tokens per minute.
    for (const batch of this.pack(prepared)) {
      const vectors = await this.embedBatch(batch, opts);
      for (const [i, p] of batch.entries()) out[p.index] = vectors[i]!;
    }
    return out;
  }

  async close(): Promise<void> {
    this.closing.abort(new Error('openai embedding provider closed'));
  }

  /** Greedy batches in input order, within the count and total-token limits. */
  private pack(inputs: PreparedInput[]): PreparedInput[][] {
    const batches: PreparedInput[][] = [];
    let cur: PreparedInput[] = [];
    let tokens = 0;
    for (const p of inputs) {
      if (cur.length && (cur.length >= this.o.batchSize || tokens + p.tokens > this.o.batchTokens)) {
        batches.push(cur);
        cur = [];
        tokens = 0;
      }
      cur.push(p);
      tokens += p.tokens;
    }
    if (cur.length) batches.push(cur);
    return batches;
  }

  private async embedBatch(batch: PreparedInput[], opts: EmbedOptions): Promise<number[][]> {
    const retries = opts.interactive ? Math.min(INTERACTIVE_RETRIES, this.o.retries) : this.o.retries;
    const maxWait = opts.interactive ? INTERACTIVE_MAX_WAIT_MS : this.o.maxRetryWaitMs;
    for (let attempt = 0; ; attempt++) {
      if (this.closing.signal.aborted) throw new Error('openai embedding provider is closed');
      try {
        return await this.request(batch.map((p) => p.text || ' '));
      } catch (err) {
        const e = err as InstanceType<typeof OpenAI.APIError>;
        const status = err instanceof OpenAI.APIError ? e.status : undefined;
        // Too large for this server (TEI answers 413 above its batch limit): split and go on.
        if (status === 413 && batch.length > 1) {
          const half = Math.ceil(batch.length / 2);
          return [...(await this.embedBatch(batch.slice(0, half), opts)), ...(await this.embedBatch(batch.slice(half), opts))];
        }
        if (status === 400 && this.configuredDimension && !this.dimensionsRefused && /dimension/i.test(this.providerMessage(e))) {
          // "where supported": the model does not take `dimensions`; its native vectors must then match.
          this.dimensionsRefused = true;
          continue;
        }
        const retryable = status === 429 || status === 408 || (status !== undefined && status >= 500);
        if (!retryable || attempt >= retries) throw this.mapError(err);
        const wait = this.retryWaitMs(e, attempt);
        if (wait > maxWait) throw this.mapError(err, `asks to retry in ${Math.round(wait / 1000)} s`);
        await this.sleep(wait);
      }
    }
  }

  private async request(input: string[]): Promise<number[][]> {
    const sendDimensions = this.configuredDimension !== undefined && !this.dimensionsRefused;
    // One signal per request: the client never removes the listener it adds, so handing it the
    // long-lived closing signal would pile up one listener per request.
    const ac = new AbortController();
    const onClose = () => ac.abort(this.closing.signal.reason);
    this.closing.signal.addEventListener('abort', onClose, { once: true });
    let res: Awaited<ReturnType<OpenAI['embeddings']['create']>>;
    try {
      res = await this.client.embeddings.create(
        {
          model: this.model,
          input,
          // Plain floats: every compatible server speaks them; base64 is OpenAI's optional extra.
          encoding_format: 'float',
          ...(sendDimensions ? { dimensions: this.configuredDimension } : {}),
        },
        { signal: ac.signal },
      );
    } finally {
      this.closing.signal.removeEventListener('abort', onClose);
    }
    const data = Array.isArray(res?.data) ? [...res.data] : [];
    if (data.length !== input.length)
      throw new EmbeddingUnavailableError(`${this.where()} returned ${data.length} embeddings for ${input.length} inputs`);
    // The protocol orders answers by `index`; some servers do not keep input order.
    data.sort((a, b) => a.index - b.index);
    const vectors = data.map((d) => d.embedding as unknown as number[]);
    const dim = vectors[0]?.length ?? 0;
    if (!dim || vectors.some((v) => !Array.isArray(v) || v.length !== dim || v.some((x) => !Number.isFinite(x))))
      throw new EmbeddingUnavailableError(`${this.where()} returned malformed or inconsistent embeddings`);
    if (this.configuredDimension !== undefined && dim !== this.configuredDimension)
      throw new EmbeddingRejectedError(
        `${this.where()} returned ${dim}-dimensional vectors, but EMBEDDING_DIMENSIONS is ${this.configuredDimension}: ` +
          `the model does not shorten its vectors. Set EMBEDDING_DIMENSIONS=${dim} or leave it unset.`,
      );
    return vectors.map((v) => l2Normalise(v));
  }

  /** Retry-After (seconds or a date) or OpenAI's retry-after-ms when given; else exponential backoff. */
  private retryWaitMs(err: InstanceType<typeof OpenAI.APIError>, attempt: number): number {
    const h = err.headers;
    const ms = Number(h?.get('retry-after-ms'));
    if (h?.get('retry-after-ms') && Number.isFinite(ms)) return Math.max(0, ms);
    const ra = parseRetryAfter(h?.get('retry-after'));
    if (ra !== null) return ra;
    return this.o.backoffBaseMs * 2 ** attempt * (1 - Math.random() * 0.25);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(t);
        reject(new Error('openai embedding provider closed'));
      };
      const t = setTimeout(() => {
        this.closing.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      this.closing.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private where(): string {
    return `embedding server ${this.baseUrl} (model ${this.model})`;
  }

  /** The server's own words: OpenAI's {error:{message}}, TEI's {error}, vLLM's {message}, FastAPI's {detail}, or the raw body. */
  private providerMessage(err: InstanceType<typeof OpenAI.APIError>): string {
    const raw = err.headers ? this.errorBodies.get(err.headers) : undefined;
    if (raw !== undefined) {
      try {
        const b = JSON.parse(raw) as Record<string, unknown>;
        const e = b.error as Record<string, unknown> | string | undefined;
        const m = typeof e === 'string' ? e : (e?.message ?? b.message ?? b.detail);
        if (m !== undefined) return (typeof m === 'string' ? m : JSON.stringify(m)).slice(0, 500);
      } catch {
        // not JSON: the text itself
      }
      if (raw.trim()) return raw.trim().slice(0, 500);
    }
    return err.message.replace(/^\d{3} /, '');
  }

  private mapError(err: unknown, note?: string): Error {
    if (this.closing.signal.aborted) return new Error('openai embedding provider closed', { cause: err });
    if (err instanceof EmbeddingRejectedError || err instanceof EmbeddingUnavailableError) return err;
    if (err instanceof OpenAI.APIConnectionTimeoutError)
      return new EmbeddingUnavailableError(`${this.where()} timed out after ${this.o.timeoutMs} ms`, { cause: err });
    if (err instanceof OpenAI.APIConnectionError) {
      // undici: TypeError('fetch failed') whose cause is the socket error (ECONNREFUSED, ENOTFOUND…).
      const fetchErr = err.cause as { message?: string; cause?: { code?: string } } | undefined;
      const detail = fetchErr?.cause?.code ?? fetchErr?.message ?? err.message;
      return new EmbeddingUnavailableError(`${this.where()} unreachable: ${detail}`, { cause: err });
    }
    if (err instanceof OpenAI.APIError && err.status !== undefined) {
      const said = this.providerMessage(err);
      const hint = /context length|too long|too many tokens|maximum.{0,40}tokens/i.test(said)
        ? ` (its input limit is below EMBEDDING_MAX_INPUT_TOKENS=${this.o.maxInputTokens}: lower that setting)`
        : '';
      const msg = `${this.where()} answered HTTP ${err.status}: ${said}${note ? ` (${note})` : hint}`;
      const transient = err.status === 429 || err.status === 408 || err.status >= 500;
      return transient ? new EmbeddingUnavailableError(msg, { cause: err }) : new EmbeddingRejectedError(msg, { cause: err });
    }
    return err instanceof Error ? err : new Error(String(err));
  }
}
