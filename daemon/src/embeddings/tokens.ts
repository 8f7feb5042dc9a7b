import type { Tiktoken } from 'js-tiktoken/lite';

let encoder: Promise<Tiktoken> | undefined;

/**
 * cl100k_base, the tokenizer of OpenAI's embedding models (text-embedding-3-*, ada-002). Loaded on
 * first need only: its ranks take seconds to parse and most texts never need an exact count.
 */
function cl100k(): Promise<Tiktoken> {
  encoder ??= Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/cl100k_base')]).then(
    ([lite, ranks]) => new lite.Tiktoken(ranks.default),
  );
  return encoder;
}

/**
 * An upper bound of the token count for any byte-level BPE tokenizer (OpenAI's, and most others):
 * every token covers at least one byte. Cheap, so batches are packed with it.
 */
export function tokenUpperBound(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export interface FittedInput {
  text: string;
  /** Tokens to budget for: the exact count when it was computed, else the byte bound. */
  tokens: number;
  /** The exact token count before truncation, when the text was cut. */
  truncatedFrom?: number;
}

/**
 * Cuts `text` to at most `maxTokens` cl100k_base tokens. Exact counting runs only when the byte
 * bound exceeds the limit, which ordinary chunks (a few KB) never do.
 */
export async function fitToTokens(text: string, maxTokens: number): Promise<FittedInput> {
  const bound = tokenUpperBound(text);
  if (bound <= maxTokens) return { text, tokens: bound };
  const enc = await cl100k();
  const tokens = enc.encode(text);
  if (tokens.length <= maxTokens) return { text, tokens: tokens.length };
  // A prefix of tokens decodes to text whose own encoding is almost always the same tokens; the loop
  // covers the rare merge across the cut, and a cut inside a multi-byte character (U+FFFD) is dropped.
  for (let n = maxTokens; n > 0; n -= Math.max(1, Math.ceil(n * 0.01))) {
    const cut = enc.decode(tokens.slice(0, n)).replace(/\uFFFD+$/, '');
    const count = enc.encode(cut).length;
    if (count <= maxTokens) return { text: cut, tokens: count, truncatedFrom: tokens.length };
  }
  return { text: '', tokens: 0, truncatedFrom: tokens.length };
}
