export type FusionMethod = 'rrf' | 'weighted';

/**
 * Default fusion per embedding model, chosen by `npm run bench:quality` on BEIR SciFact.
 * A weak model (the built-in USE-lite) gets little weight so hybrid never falls below text alone;
 * a strong retrieval model gets an even split.
 */
const DEFAULTS: Record<string, { method: FusionMethod; semanticRatio: number }> = {
  'use-lite-512': { method: 'weighted', semanticRatio: 0.2 },
  'nomic-embed-text': { method: 'weighted', semanticRatio: 0.5 },
};

export function defaultFusion(model: string): { method: FusionMethod; semanticRatio: number } {
  return DEFAULTS[model] ?? { method: 'rrf', semanticRatio: 0.5 };
}
