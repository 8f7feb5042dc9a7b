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
}

/** Mean nDCG@10 and Recall@k over queries; a query with no ranking scores 0. */
export function scoreRun(
  runs: Map<string, string[]>,
  queries: readonly { id: string; relevant: ReadonlySet<string> }[],
  recallK: number,
): RunScores {
  const nd: number[] = [];
  const rc: number[] = [];
  for (const q of queries) {
    const ranked = runs.get(q.id) ?? [];
    nd.push(ndcgAt(ranked, q.relevant, 10));
    rc.push(recallAt(ranked, q.relevant, recallK));
  }
  return { ndcg10: mean(nd), recall: mean(rc), recallK, queries: queries.length };
}
