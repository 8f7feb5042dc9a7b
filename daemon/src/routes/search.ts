import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import { search, type SearchRequest } from '../search/service.js';
import type { AppDeps, SearchNote } from '../types.js';
import { errorResponses, jsonBody, jsonResponse } from './router.js';
import { FilterField, registerFilterSchemas } from './filter-schemas.js';
import { DocumentMetadata } from '../metadata.js';
import { parseFilter } from '../filters/parse.js';
import { checkFacetFields } from '../search/facets.js';
import { FacetsField, FacetsSchema, HighlightsSchema } from './facet-schemas.js';

export const SearchRequestSchema = z
  .strictObject({
    query: z
      .string({ error: (i) => (i.input === undefined ? 'Query is required.' : 'Query must be a string.') })
      .trim()
      .min(1, 'Query must not be empty.')
      .max(1000, 'Query must be at most 1000 characters.')
      .openapi({
        description: 'Web-search syntax: "quoted phrases" and -excluded words work; any input is safe.',
        example: 'how are embeddings indexed',
      }),
    collection: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'Collection slug; default: every visible collection. 404 COLLECTION_NOT_FOUND when not visible.' }),
    collection_id: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'Alias of `collection` (older clients); a slug or a collection uuid.' }),
    collections: z
      .array(z.string().min(1))
      .min(1)
      .max(100)
      .optional()
      .openapi({
        description:
          'Several collection slugs searched at once (with `collection` when both are given); 404 COLLECTION_NOT_FOUND when one is not visible.',
        example: ['contracts', 'handbook'],
      }),
    filter: FilterField,
    limit: z
      .number()
      .int('Limit must be an integer.')
      .min(1, 'Limit must be at least 1.')
      .max(50, 'Limit must be at most 50.')
      .optional()
      .openapi({ default: 5 }),
    mode: z
      .enum(['hybrid', 'text', 'vector'])
      .optional()
      .openapi({ default: 'hybrid', description: '`text`: BM25 only; `vector`: embeddings only; `hybrid`: both, fused.' }),
    tags: z
      .array(z.string().min(1))
      .max(50)
      .optional()
      .openapi({ description: 'Only chunks of documents carrying any of these tags (case-insensitive).' }),
    max_chunks_per_document: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: 'At most this many results from one document.' }),
    explain: z.boolean().optional().openapi({
      description: 'Adds each result’s per-channel rank and raw score, and the fusion and relevance floor in force (`explain`).',
    }),
    fusion: z
      .enum(['rrf', 'weighted'])
      .optional()
      .openapi({ description: 'Hybrid fusion method; default depends on the embedding model (see semantic_ratio).' }),
    semantic_ratio: z.number().min(0).max(1).optional().openapi({
      description:
        'Weight of the vector channel in weighted fusion (0 = text only, 1 = vector only). Default per model, chosen on BEIR SciFact: 0.1 for the built-in model, 0.5 for nomic-embed-text.',
    }),
    min_score: z
      .number({ error: 'min_score must be a number between 0 and 1.' })
      .min(0, 'min_score must be between 0 and 1.')
      .max(1, 'min_score must be between 0 and 1.')
      .optional()
      .openapi({
        description:
          'Relevance floor: the minimum cosine similarity to the query of a chunk that only the vector channel found. `hybrid`: such chunks below it are dropped (text matches are always kept); by default the floor is computed per query, from what the query scores against a sample of the searched collections’ own chunks (any embedding model), so a query with no lexical match and nothing semantically close returns no results. `vector`: every result below it is dropped (default: none). No effect in `text` mode. `explain` shows the floor in force and where it came from.',
        example: 0.3,
      }),
    score_threshold: z
      .number({ error: 'score_threshold must be a number between 0 and 1.' })
      .min(0, 'score_threshold must be between 0 and 1.')
      .max(1, 'score_threshold must be between 0 and 1.')
      .optional()
      .openapi({
        description:
          'Drops results whose `score` (as returned, in any mode) is below this: a threshold in the units results show. In hybrid mode the score is relative to the best match of the query, so 0.5 keeps results at least half as good as the best.',
        example: 0.5,
      }),
    facets: FacetsField,
  })
  .openapi('SearchRequest');

const ChannelExplain = z.object({ rank: z.number().int(), score: z.number() }).nullable();
export const SearchResultSchema = z
  .object({
    content: z.string().openapi({ description: 'Chunk text.' }),
    highlights: HighlightsSchema,
    title: z.string().openapi({ description: 'Document title.' }),
    document_id: z.string().openapi({ format: 'uuid' }),
    collection_name: z.string(),
    collection_slug: z.string(),
    tags: z.array(z.string()),
    metadata: DocumentMetadata,
    score: z.number().openapi({
      description:
        'Relevance in [0, 1]; higher is better. Results are sorted by it. Hybrid: fused, relative to the best match of the query; text: BM25 relative to the best match; vector: cosine similarity. `score_threshold` filters on it.',
    }),
    chunk_id: z.string().openapi({ format: 'uuid' }),
    chunk_index: z.number().int(),
    page: z.number().int().nullable().openapi({ description: 'PDF page of the chunk, for citations.' }),
    explain: z.object({ text: ChannelExplain, vector: ChannelExplain }).optional(),
  })
  .openapi('SearchResult');

const Basis = z.enum(['measured', 'assumed']).nullable().openapi({
  description: 'For a model default: `measured` with bench:quality (the note gives the figure) or `assumed` (the note gives the reason).',
});
const SearchExplain = z
  .object({
    embedding_model: z.string(),
    defaults_row: z.string().openapi({ description: 'Row of the per-model defaults table used (`other` for models not in it).' }),
    fusion: z.object({
      source: z.enum(['request', 'model_default', 'none']),
      basis: Basis,
      note: z.string().nullable(),
    }),
    min_score: z.object({
      value: z.number().nullable().openapi({ description: 'The relevance floor applied; null: none.' }),
      source: z.enum(['request', 'setting', 'background', 'model_default', 'none']).openapi({
        description:
          '`request`: min_score; `setting`: HYBRID_MIN_SIMILARITY; `background`: computed per query from a sample of the searched chunks (the default, any model); `model_default`: the model’s row; `none`: no floor in this mode.',
      }),
      basis: Basis,
      note: z.string().nullable(),
      background: z
        .object({
          chunks: z.number().openapi({ description: 'Chunks in the searched collections.' }),
          sample: z.number().int().openapi({ description: 'Chunk vectors sampled from them.' }),
          median: z.number().openapi({ description: 'Median cosine similarity of the query to the sample.' }),
          spread: z.number().openapi({ description: 'Spread of those similarities (1.4826 × median absolute deviation).' }),
          z: z
            .number()
            .openapi({ description: 'value = median + z × spread; z grows with √(2 ln chunks), where the best unrelated chunk lies.' }),
        })
        .optional()
        .openapi({ description: 'With source `background`: what the floor was computed from.' }),
      dropped: z.number().int().openapi({ description: 'Vector-only chunks the floor removed.' }),
    }),
    bm25: z
      .object({ k1: z.number(), b: z.number() })
      .openapi({ description: 'BM25 parameters of the text scores (settings BM25_K1 and BM25_B; Lucene IDF).' }),
  })
  .openapi('SearchExplain', { description: 'With `explain: true`: the defaults in force and where they come from.' });

export const SearchResponseSchema = z
  .object({
    query: z.string(),
    count: z.number().int(),
    results: z.array(SearchResultSchema),
    mode: z.enum(['hybrid', 'text', 'vector']),
    fallback: z.enum(['text_only']).nullable().openapi({
      description: '`text_only` when hybrid search ran without the vector channel because the embedding provider was unavailable.',
    }),
    fusion: z.object({ method: z.enum(['rrf', 'weighted', 'none']), semantic_ratio: z.number().nullable() }),
    explain: SearchExplain.optional(),
    facets: FacetsSchema.optional().openapi({
      description:
        'With `facets` in the request: per field, value counts over the distinct documents of the ranked candidates (the best 100 chunks of each channel passing the collections, tags, filter, phrases, exclusions, relevance floor and score_threshold), before `limit` and `max_chunks_per_document`.',
    }),
  })
  .openapi('SearchResponse');

const searchRoute = createRoute({
  method: 'post',
  path: '/api/v1/search',
  operationId: 'searchDocuments',
  tags: ['Search'],
  summary: 'Hybrid search',
  description: 'BM25 full-text plus vector search over the collections the key may read; only indexed chunks of live documents count.',
  request: { body: jsonBody(SearchRequestSchema) },
  responses: {
    200: jsonResponse(SearchResponseSchema, 'Ranked results'),
    ...errorResponses(['VALIDATION_FAILED', 'COLLECTION_NOT_FOUND', 'SEARCH_UNAVAILABLE']),
  },
});

export type SearchBody = z.output<typeof SearchRequestSchema>;

/** A checked search body as the search use case takes it, with the request's defaults: REST and MCP alike. */
export function searchRequest(b: SearchBody, note: SearchNote | undefined): SearchRequest {
  return {
    query: b.query,
    collection: b.collection ?? b.collection_id,
    collections: b.collections,
    filter: b.filter === undefined ? undefined : parseFilter(b.filter),
    limit: b.limit ?? 5,
    mode: b.mode ?? 'hybrid',
    tags: b.tags,
    maxChunksPerDocument: b.max_chunks_per_document,
    explain: b.explain,
    fusion: b.fusion,
    semanticRatio: b.semantic_ratio,
    minScore: b.min_score,
    note,
    scoreThreshold: b.score_threshold,
    facets: b.facets === undefined ? undefined : checkFacetFields(b.facets),
  };
}

export function registerSearchRoutes(app: App, deps: AppDeps): void {
  registerFilterSchemas(app);
  app.openapi(searchRoute, async (c) => {
    const r = await search(deps, c.get('caller'), searchRequest(c.req.valid('json'), c.get('searchNote')));
    return c.json(r, 200);
  });
}
