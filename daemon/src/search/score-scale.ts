import type { Fused } from './fusion.js';

/** The score results carry: six decimals, so a threshold copied from a result keeps that result. */
export function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}

/**
 * Results at or above a threshold on the displayed score (`score_threshold`, CLI `--min-score`).
 * What a score means per mode: text, BM25 relative to the best match (1 = the best); vector,
 * cosine similarity; hybrid, the fused score (weighted: text share × relative BM25 + vector share ×
 * relative similarity; rrf: 1 = ranked first by both channels).
 */
export function atThreshold<T extends Fused>(list: T[], threshold: number | undefined): T[] {
  if (threshold === undefined) return list;
  return list.filter((f) => roundScore(f.score) >= threshold);
}

/** One sentence for tool descriptions and help texts. */
export const SCORE_MEANING =
  'score is in [0, 1], higher is better: in hybrid mode a fused score relative to the best match of this query (about 1 for a chunk both channels rank first); in text mode BM25 relative to the best match; in vector mode cosine similarity. Results found only by meaning are kept only when they stand out from the searched collections’ unrelated text, so an empty answer means nothing relevant was found.';
