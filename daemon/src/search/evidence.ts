import { type Background, queryBackground } from './background.js';
import type { Candidate } from './fusion.js';

/**
 * Whether a hybrid query is about the searched documents at all. Text matches are lexical evidence
 * only when the query is on topic; otherwise a question about pizza dough that shares "hand" and
 * "long" with scientific abstracts would be answered with them. Nearness is measured in the model's
 * own scale, so no per-model setting: spreads from the median similarity of pairs of the scope's
 * sampled chunks (`pairs`, background.ts). The query is on topic when
 * - the chunk nearest in meaning is at least TOPIC.nearness spreads from the median pair, or
 * - some chunk holds at least TOPIC.fullCoverage of the query's idf weight (BM25's own idf over the
 *   searched collections: rarer words weigh more, a word no chunk holds weighs the most), or
 * - some chunk holds at least TOPIC.coverage of it and the query is in the scope's domain: its
 *   median similarity to the sampled chunks is at least TOPIC.domain spreads from the median pair.
 *   A question about taxes or git shares a few words with abstracts and sits far from all of them
 *   (SciFact: off-topic queries' median at −4.4 spreads, test claims' at −0.9).
 * Otherwise the answer is empty, whichever channel matched. The vector channel cannot judge, and every
 * match counts, when the model shows no structure in the scope (the median pair is under
 * TOPIC.structure spreads from 0, as with random vectors), when the scope has fewer than MIN_SAMPLE
 * sampled chunks, or when the query has no vector (the provider is down). Text mode keeps every
 * lexical match (plain BM25). Chosen with `npm run bench:quality -- --evidence-study` on SciFact and
 * NFCorpus together (docs/performance.md, "Hybrid evidence"), on two samples of each (the one a
 * daemon draws depends on the chunks): with the built-in model, nDCG@10 as without the rule on
 * SciFact (0.6922) and 0.003 below on NFCorpus, off-topic questions with a result 17–18 and 10–12 of
 * 114 (nearness −0.6: 21–22 and 11–14), real queries with none 7–8 of SciFact's 809 unjudged claims
 * and 26–28 of NFCorpus's 323 (13 hold no corpus word). Domain −3.6 cut NFCorpus's survivors to 8
 * and cost its nDCG@10 0.003 more on one of the two samples.
 */
export const TOPIC = { coverage: 0.4, fullCoverage: 0.9, domain: -3.8, nearness: -0.4, structure: 2 } as const;
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
  /** The query's median similarity to the sampled chunks, in pair spreads from the median pair (null: not judged). */
  domain: number | null;
}

/** Thresholds of the rule (TOPIC by default; bench:quality's study scores others). */
export type TopicThresholds = Record<'coverage' | 'fullCoverage' | 'domain' | 'nearness', number>;

/** The share of the query's idf weight a text candidate holds, from the weight it holds (`matched`). */
export function textCoverage(c: Candidate, queryWeight: number): void {
  c.coverage = queryWeight > 0 ? (c.matched ?? 0) / queryWeight : 0;
}

/** Whether the measured query is on topic under thresholds `t`, and on what basis. */
export function onTopic(
  m: { coverage: number; nearness: number; domain: number },
  t: TopicThresholds = TOPIC,
): { on: boolean; basis: TopicBasis } {
  if (m.nearness >= t.nearness) return { on: true, basis: 'nearness' };
  if (m.coverage >= t.fullCoverage || (m.coverage >= t.coverage && m.domain >= t.domain)) return { on: true, basis: 'coverage' };
  return { on: false, basis: 'off_topic' };
}

/** Judges the query from the channels' candidates, its vector and the scope's background sample. */
export function judgeTopic(
  text: readonly Candidate[],
  vector: readonly Candidate[],
  bg: Background | null,
  queryVector: readonly number[] | undefined,
): Topic {
  const coverage = Math.max(0, ...text.map((c) => c.coverage ?? 0));
  const unjudged = (basis: TopicBasis): Topic => ({ on: true, basis, coverage, nearness: null, domain: null });
  if (!bg || !queryVector) return unjudged('no_vector');
  if (bg.sample.length < MIN_SAMPLE) return unjudged('small_scope');
  if (bg.pairs.median < TOPIC.structure * bg.pairs.spread) return unjudged('no_structure');
  const inPairSpreads = (s: number) => (s - bg.pairs.median) / bg.pairs.spread;
  const nearness = inPairSpreads(Math.max(-1, ...vector.map((c) => c.score)));
  const domain = inPairSpreads(queryBackground(queryVector, bg.sample).median);
  return { ...onTopic({ coverage, nearness, domain }), coverage, nearness, domain };
}
