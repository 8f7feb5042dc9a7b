import { PermanentError } from '../errors.js';

/**
 * Contract shared by every embedding backend. Vectors are L2-normalised so
 * callers can use inner product / cosine interchangeably.
 */
export interface EmbeddingProvider {
  /** 'builtin' | 'ollama' | 'openai' */
  readonly name: string;
  /** e.g. 'use-lite-512', 'nomic-embed-text' or 'text-embedding-3-small' */
  readonly model: string;
  /** The vector length when it is known without asking the server (configured or fixed), for the startup guard. */
  readonly configuredDimension?: number;
  /** Vector length. Remote providers probe once and cache. */
  dimension(): Promise<number>;
  /** L2-normalised vectors, same order and count as the input. */
  embed(texts: string[], opts?: EmbedOptions): Promise<number[][]>;
  close(): Promise<void>;
}

/** One probe shared by every caller, in flight or settled; a failed one is forgotten so a later call tries again (the server may be back). */
export function probeOnce<T>(probe: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= probe().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
}

export interface EmbedOptions {
  /**
   * A user is waiting (a search query): fail over quickly rather than sit out long rate-limit
   * waits, since hybrid search can answer text-only meanwhile.
   */
  interactive?: boolean;
}

/**
 * The provider is down or unreachable. Callers treat it as transient
 * (retry the job later, or fall back to BM25-only search).
 */
export class EmbeddingUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddingUnavailableError';
  }
}

/**
 * The provider refused the request in a way no retry fixes (bad API key, unknown model, invalid
 * request). A PermanentError: the processing job fails the document at once with this message.
 */
export class EmbeddingRejectedError extends PermanentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddingRejectedError';
  }
}

/** Scales a vector to unit length in place; a zero vector is left as is. */
export function l2Normalise(vector: number[]): number[] {
  let sum = 0;
  for (const v of vector) sum += v * v;
  const norm = Math.sqrt(sum);
  if (norm === 0 || !Number.isFinite(norm)) return vector;
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`dimension mismatch: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  const denom = Math.sqrt(na * nb);
  return denom === 0 ? 0 : dot / denom;
}
