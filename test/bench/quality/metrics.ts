// IR metrics as BEIR computes them with pytrec_eval, for binary relevance: nDCG@k with the
// log2(rank + 1) discount and the ideal ranking from the qrels, and Recall@k.

/** Document ids in first-occurrence order: a document ranks where its best chunk ranks. */
export function dedupeDocs(chunkDocIds: Iterable<string | undefined>, k = Infinity): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const d of chunkDocIds) {
    if (d === undefined || seen.has(d)) continue;
    seen.add(d);
    out.push(d);
    if (out.length >= k) break;
  }
  return out;
}

export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((d, i) => {
    if (relevant.has(d)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

/**
 * nDCG@k with graded gains as trec_eval/pytrec_eval compute it (gain = the qrel grade, log2(rank + 1)
 * discount, ideal from the grades sorted): what BEIR reports for NFCorpus (grades 2 and 1).
 */
export function gradedNdcgAt(ranked: readonly string[], grades: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((d, i) => {
    dcg += (grades.get(d) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...grades.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i]! / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (!relevant.size) return 0;
  let hits = 0;
  for (const d of ranked.slice(0, k)) if (relevant.has(d)) hits++;
  return hits / relevant.size;
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

export interface RunScores {
  ndcg10: number;
  /** Recall at `recallK` documents. */
  recall: number;
  recallK: number;
  queries: number;
  /** nDCG@10 with graded gains, when the qrels have grades. */
  ndcg10Graded?: number;
}

/** Mean nDCG@10 and Recall@k over queries; a query with no ranking scores 0. */
export function scoreRun(
  runs: Map<string, string[]>,
  queries: readonly { id: string; relevant: ReadonlySet<string>; grades?: ReadonlyMap<string, number> }[],
  recallK: number,
): RunScores {
  const nd: number[] = [];
  const gd: number[] = [];
  const rc: number[] = [];
  for (const q of queries) {
    const ranked = runs.get(q.id) ?? [];
    nd.push(ndcgAt(ranked, q.relevant, 10));
    if (q.grades) gd.push(gradedNdcgAt(ranked, q.grades, 10));
    rc.push(recallAt(ranked, q.relevant, recallK));
  }
  const graded = gd.length && queries.some((q) => q.grades && [...q.grades.values()].some((g) => g > 1));
  return { ndcg10: mean(nd), recall: mean(rc), recallK, queries: queries.length, ...(graded ? { ndcg10Graded: mean(gd) } : {}) };
}
