/** A channel's candidate: raw score (higher is better) and 1-based rank within the channel. */
export interface Candidate {
  chunkId: string;
  score: number;
  rank: number;
  /** Text channel: the idf weight of the query words the chunk holds (evidence.ts). */
  matched?: number;
  /** Text channel: its share of the query's idf weight. */
  coverage?: number;
}

export interface Fused {
  chunkId: string;
  score: number;
  text?: Candidate;
  vector?: Candidate;
}

export const RRF_K = 60;

/**
 * A channel's ranked list from one row of two `string_agg` texts in rank order (uuids, and the
 * float8 scores in PostgreSQL's shortest exact text form, which Number() reads back to the same
 * double). One row instead of 100: postgres.js spent about 1.2 µs of the daemon's CPU per row it
 * parsed, and the backend sends one DataRow message instead of 100.
 */
export function candidateList(ids: string | null, scores: string | null, matched?: string | null): Candidate[] {
  if (!ids || scores === null) return [];
  const id = ids.split(',');
  const score = scores.split(',');
  const held = matched?.split(',');
  const out: Candidate[] = new Array(id.length);
  for (let i = 0; i < id.length; i++)
    out[i] = held
      ? { chunkId: id[i]!, score: Number(score[i]), rank: i + 1, matched: Number(held[i]) }
      : { chunkId: id[i]!, score: Number(score[i]), rank: i + 1 };
  return out;
}

function byId(list: Candidate[]): Map<string, Candidate> {
  return new Map(list.map((c) => [c.chunkId, c]));
}

/** Reciprocal rank fusion, scaled so a chunk ranked first by every channel scores 1. */
export function rrf(text: Candidate[], vector: Candidate[], k = RRF_K): Fused[] {
  const t = byId(text);
  const v = byId(vector);
  const channels = (text.length ? 1 : 0) + (vector.length ? 1 : 0) || 1;
  const max = channels / (k + 1);
  const ids = new Set([...t.keys(), ...v.keys()]);
  return [...ids]
    .map((id) => {
      const a = t.get(id);
      const b = v.get(id);
      const raw = (a ? 1 / (k + a.rank) : 0) + (b ? 1 / (k + b.rank) : 0);
      return { chunkId: id, score: raw / max, text: a, vector: b };
    })
    .sort((x, y) => y.score - x.score || x.chunkId.localeCompare(y.chunkId));
}

/**
 * Weighted fusion of normalised scores: text scores divided by the best text score, vector
 * similarities clamped to [0, 1] and divided by the best one; `semanticRatio` weighs the vector side.
 * Missing channel scores count as 0, so the result stays in [0, 1].
 */
export function weighted(text: Candidate[], vector: Candidate[], semanticRatio: number): Fused[] {
  const t = byId(text);
  const v = byId(vector);
  const maxT = Math.max(0, ...text.map((c) => c.score)) || 1;
  const maxV = Math.max(0, ...vector.map((c) => Math.max(0, c.score))) || 1;
  const ids = new Set([...t.keys(), ...v.keys()]);
  return [...ids]
    .map((id) => {
      const a = t.get(id);
      const b = v.get(id);
      const ts = a ? a.score / maxT : 0;
      const vs = b ? Math.max(0, b.score) / maxV : 0;
      return { chunkId: id, score: (1 - semanticRatio) * ts + semanticRatio * vs, text: a, vector: b };
    })
    .sort((x, y) => y.score - x.score || x.chunkId.localeCompare(y.chunkId));
}

/** A single channel's list as results: text scores normalised by the best one, vector similarity clamped to [0, 1]. */
export function single(list: Candidate[], channel: 'text' | 'vector'): Fused[] {
  const max = Math.max(0, ...list.map((c) => c.score)) || 1;
  return list.map((c) => ({
    chunkId: c.chunkId,
    score: channel === 'text' ? c.score / max : Math.min(1, Math.max(0, c.score)),
    [channel]: c,
  }));
}

/**
 * Relevant-only hybrid results: drops chunks that only the vector channel found (no text match)
 * whose similarity is below `floor`. Text matches are always kept, and the kept chunks keep their
 * scores and order. A null floor keeps everything.
 */
export function keepRelevant(list: Fused[], floor: number | null): { kept: Fused[]; dropped: number } {
  if (floor === null) return { kept: list, dropped: 0 };
  const kept = list.filter((f) => f.text || (f.vector && f.vector.score >= floor));
  return { kept, dropped: list.length - kept.length };
}
