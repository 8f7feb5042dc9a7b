import type { Background } from './background.js';
import type { Candidate } from './fusion.js';

/**
 * Whether a hybrid query is about the searched documents at all. Text matches are lexical evidence
 * only when the query is on topic; otherwise a question about pizza dough that shares "hand" and
 * "long" with scientific abstracts would be answered with them. The query is on topic when
 * - some chunk holds at least TOPIC.coverage of the query's idf weight (BM25's own idf over the
 *   searched collections: rarer words weigh more, a word no chunk holds weighs the most), or
 * - the chunk nearest in meaning is about as close to the query as the scope's chunks are to one
 *   another: its similarity is at least the median of pairs of sampled chunks plus TOPIC.nearness
 *   spreads (`pairs`, background.ts), which is the model's own scale, so no per-model setting.
 * Otherwise the answer is empty, whichever channel matched. The vector channel cannot judge, and every
 * match counts, when the model shows no structure in the scope (the median pair is under
 * TOPIC.structure spreads from 0, as with random vectors), when the scope has fewer than MIN_SAMPLE
 * sampled chunks, or when the query has no vector (the provider is down). Text mode keeps every
 * lexical match (plain BM25). Chosen with `npm run bench:quality -- --evidence-study` on SciFact and
 * NFCorpus together (docs/performance.md, "Hybrid evidence").
 */
export const TOPIC = { coverage: 0.55, nearness: -0.8, structure: 2 } as const;
/** Sampled chunks below which the scope says nothing about the model's scale. */
export const MIN_SAMPLE = 16;

export type TopicBasis = 'coverage' | 'nearness' | 'no_structure' | 'small_scope' | 'no_vector' | 'off_topic';

export interface Topic {
  on: boolean;
  basis: TopicBasis;
  /** The best text match's share of the query's idf weight (0: none). */
  coverage: number;
  /** The nearest chunk's similarity, in pair spreads from the median pair (null: not judged). */
  nearness: number | null;
}

/** The share of the query's idf weight a text candidate holds, from the weight it holds (`matched`). */
export function textCoverage(c: Candidate, queryWeight: number): void {
  c.coverage = queryWeight > 0 ? (c.matched ?? 0) / queryWeight : 0;
}

/** Judges the query from the channels' candidates and the scope's background sample. */
export function judgeTopic(text: readonly Candidate[], vector: readonly Candidate[], bg: Background | null): Topic {
  const coverage = Math.max(0, ...text.map((c) => c.coverage ?? 0));
  const judged = (on: boolean, basis: TopicBasis, nearness: number | null = null): Topic => ({ on, basis, coverage, nearness });
  if (!bg) return judged(true, 'no_vector');
  if (bg.sample.length < MIN_SAMPLE) return judged(true, 'small_scope');
  if (bg.pairs.median < TOPIC.structure * bg.pairs.spread) return judged(true, 'no_structure');
  const best = Math.max(-1, ...vector.map((c) => c.score));
  const nearness = (best - bg.pairs.median) / bg.pairs.spread;
  if (coverage >= TOPIC.coverage) return judged(true, 'coverage', nearness);
  return judged(nearness >= TOPIC.nearness, nearness >= TOPIC.nearness ? 'nearness' : 'off_topic', nearness);
}
