export type FusionMethod = 'rrf' | 'weighted';

/** How a default was chosen: measured here with `npm run bench:quality` (the note gives the figure), or assumed (the note gives the reason). */
export type Basis = 'measured' | 'assumed';

export interface ModelDefaults {
  /** The table row used: the model's name, or `other` for models not in the table. */
  row: string;
  fusion: { method: FusionMethod; semanticRatio: number; basis: Basis; note: string };
  /**
   * Fixed relevance floor for scopes too small for a background sample (relevance-floor.ts
   * MIN_SAMPLE chunks): a chunk only the vector channel found is kept when its cosine similarity
   * reaches this value; null keeps every one. Larger scopes use BACKGROUND_FLOOR, whatever the model.
   */
  floor: { value: number | null; basis: Basis; note: string };
}

/** Both text-embedding-3 sizes share a similarity scale, so one assumed row serves them. */
const TEXT_EMBEDDING_3: Omit<ModelDefaults, 'row'> = {
  fusion: {
    method: 'weighted',
    semanticRatio: 0.5,
    basis: 'assumed',
    note: 'no access to the OpenAI API here; a dense retriever at least as strong as BM25 on BEIR gets an even split, like nomic-embed-text',
  },
  floor: {
    value: null,
    basis: 'assumed',
    note: 'no fixed floor (not measured here): the background floor applies; a scope of fewer than 16 chunks keeps every vector match',
  },
};

/**
 * Defaults per embedding model. Similarity scales differ a lot between models (unrelated texts score
 * about 0.1 with text-embedding-3-*, about 0.7 with ada-002), so a floor only means something per
 * model. Measured rows come from BEIR SciFact (5,183 abstracts, 300 test queries, nDCG@10; text-only
 * BM25 = 0.691) — see test/bench/quality/README.md for the method and how to measure a new model.
 */
const TABLE: Record<string, Omit<ModelDefaults, 'row'>> = {
  // Built-in USE-lite: a weak retriever (vector-only 0.174), so the vector side only breaks ties.
  'use-lite-512': {
    fusion: {
      method: 'weighted',
      semanticRatio: 0.1,
      basis: 'measured',
      note: 'SciFact / NFCorpus nDCG@10 (npm run bench:quality -- --dataset scifact|nfcorpus, 2026-11-27): weighted 0.05 → 0.694 / 0.335, 0.1 → 0.693 / 0.334, 0.2 → 0.680 / 0.331, 0.5 → 0.444 / 0.293, RRF → 0.692 / 0.332; text alone 0.694 / 0.331',
    },
    floor: {
      value: 0.5,
      basis: 'measured',
      note: 'SciFact and NFCorpus (npm run bench:quality -- --dataset scifact|nfcorpus, 2026-11-27): nonsense queries with a hybrid result 0/50 on both (best similarity of nonsense at most 0.450 on NFCorpus, where the background cut alone let 8/50 through); SciFact claims outside the test split with no hybrid result 1/809; hybrid nDCG@10 0.693 / 0.334 (NFCorpus without a floor 0.337)',
    },
  },
  'nomic-embed-text': {
    fusion: {
      method: 'weighted',
      semanticRatio: 0.5,
      basis: 'assumed',
      note: 'no Ollama server to measure with here; its published SciFact nDCG@10 (0.703) is level with BM25 (0.691), so an even split',
    },
    floor: {
      value: null,
      basis: 'assumed',
      note: 'no fixed floor (not measured here): the background floor applies; a scope of fewer than 16 chunks keeps every vector match',
    },
  },
  'text-embedding-3-small': TEXT_EMBEDDING_3,
  'text-embedding-3-large': TEXT_EMBEDDING_3,
  'text-embedding-ada-002': {
    fusion: {
      method: 'weighted',
      semanticRatio: 0.5,
      basis: 'assumed',
      note: 'no access to the OpenAI API here; a dense retriever at least as strong as BM25 on BEIR gets an even split',
    },
    floor: {
      value: null,
      basis: 'assumed',
      note: 'no fixed floor (not measured here): the background floor applies; a scope of fewer than 16 chunks keeps every vector match',
    },
  },
};

/** Any other model (e.g. served by vLLM, TEI or LM Studio): rank fusion needs no score scale, and no floor is guessed. */
const OTHER: Omit<ModelDefaults, 'row'> = {
  fusion: {
    method: 'rrf',
    semanticRatio: 0.5,
    basis: 'assumed',
    note: 'model not in the table: reciprocal rank fusion (k = 60) does not depend on the model’s score scale',
  },
  floor: {
    value: null,
    basis: 'assumed',
    note: 'no fixed floor (not measured here): the background floor applies; a scope of fewer than 16 chunks keeps every vector match',
  },
};

/**
 * The default hybrid floor for every model (relevance-floor.ts): a vector-only chunk is kept when it
 * stands above what the query scores against a sample of the scope's own chunks, by more than the
 * best of the scope's unrelated chunks is expected to.
 */
export const BACKGROUND_FLOOR: { basis: Basis; note: string } = {
  basis: 'measured',
  note: 'random 512-d vectors, a model outside the table, no setting (npm run bench:quality -- --dataset scifact|nfcorpus --stand-in random, 2026-11-27 23:40 / 23:36): nonsense queries with a hybrid result 0/50 on SciFact and NFCorpus (50/50 without a floor); hybrid nDCG@10 equal to text, SciFact 0.694 (0.391 without a floor), NFCorpus 0.331 (0.197); the best nonsense hit stood at most 0.46 spread past √(2 ln N), under the margin of 1',
};

export function modelDefaults(model: string): ModelDefaults {
  const row = Object.hasOwn(TABLE, model) ? model : 'other';
  return { row, ...(row === 'other' ? OTHER : TABLE[model]!) };
}

export function defaultFusion(model: string): { method: FusionMethod; semanticRatio: number } {
  const { method, semanticRatio } = modelDefaults(model).fusion;
  return { method, semanticRatio };
}

/** Every row of the table, and `other`: what the no-placeholder test (test/search.defaults-marks.test.ts) reads. */
export function defaultRows(): ModelDefaults[] {
  return [...Object.keys(TABLE), 'other'].map((m) => modelDefaults(m === 'other' ? '\u0000other' : m));
}
