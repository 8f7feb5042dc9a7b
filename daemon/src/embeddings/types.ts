/**
 * Contract shared by every embedding backend. Vectors are L2-normalised so
 * callers can use inner product / cosine interchangeably.
 */
export interface EmbeddingProvider {
  /** 'builtin' | 'ollama' */
  readonly name: string;
  /** e.g. 'use-lite-512' or 'nomic-embed-text' */
  readonly model: string;
  /** Vector length. Ollama probes once and caches. */
  dimension(): Promise<number>;
  /** L2-normalised vectors, same order and count as the input. */
  embed(texts: string[]): Promise<number[][]>;
  close(): Promise<void>;
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
