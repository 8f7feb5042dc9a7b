export type FusionMethod = 'rrf' | 'weighted';

/**
 * Default fusion per embedding model, chosen by `npm run bench:quality` on BEIR SciFact
 * (nDCG@10; text-only BM25 = 0.691, USE-lite vector-only = 0.174):
 *   weighted 0.05 → 0.695, 0.1 → 0.693, 0.2 → 0.682, 0.3 → 0.643, 0.5 → 0.423; RRF → 0.427.
 * The weak built-in model therefore gets a small weight (0.1 keeps hybrid above text alone while
 * the vector side still breaks ties and adds paraphrase recall); a strong retrieval model gets an
 * even split. Users override per request with `fusion` and `semantic_ratio`.
 */
const DEFAULTS: Record<string, { method: FusionMethod; semanticRatio: number }> = {
  'use-lite-512': { method: 'weighted', semanticRatio: 0.1 },
  'nomic-embed-text': { method: 'weighted', semanticRatio: 0.5 },
};

export function defaultFusion(model: string): { method: FusionMethod; semanticRatio: number } {
  return DEFAULTS[model] ?? { method: 'rrf', semanticRatio: 0.5 };
}
