import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import { search, type SearchRequest } from '../search/service.js';
import type { AppDeps, SearchNote } from '../types.js';
import { errorResponses, jsonBody, jsonResponse } from './router.js';
import { FilterField, registerFilterSchemas } from './filter-schemas.js';
import { DocumentMetadata } from '../metadata.js';
import { parseFilter } from '../filters/parse.js';
import { checkFacetFields } from '../search/facets.js';
import { facetsField, FacetsSchema, HighlightsSchema } from './facet-schemas.js';

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
    typo_tolerance: z.boolean().optional().openapi({
      description:
        'Reads a query word that no searched document holds as the nearest word they do: 1 edit away for words of 5–8 letters (4 letters: one letter left out), 2 for 9 or more, ranked below exact matches; `correction` shows what was read. Words in "quotes" and -excluded words are never corrected. Default: on (setting TYPO_TOLERANCE). No effect in `vector` mode.',
    }),
    facets: facetsField(
      'The answer’s `facets` counts over the distinct documents of the ranked candidates (the best 100 chunks of each channel passing the collections, tags, filter, quoted phrases, exclusions, relevance floor and score_threshold), before `limit` and `max_chunks_per_document`.',
    ),
  })
  .openapi('SearchRequest');

const ChannelExplain = z.object({ rank: z.number().int(), score: z.number() }).nullable();
const TextExplain = z
  .object({
    rank: z.number().int(),
    score: z.number(),
    coverage: z.number().nullable().openapi({
      description: 'Share of the query’s idf weight (its words, rarer ones weighing more) that the chunk holds; 1: the whole query.',
    }),
  })
  .nullable();
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
    explain: z.object({ text: TextExplain, vector: ChannelExplain }).optional(),
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
    evidence: z
      .object({
        on: z.boolean().openapi({ description: 'Whether the query is about the searched documents; when not, a hybrid answer is empty.' }),
        basis: z.enum(['coverage', 'nearness', 'no_structure', 'small_scope', 'no_vector', 'off_topic']).openapi({
          description:
            '`coverage`: a chunk holds nearly all of the query’s weight, or enough of it with the query in the documents’ domain; `nearness`: the chunk nearest in meaning is about as close as the scope’s chunks are to one another; `off_topic`: neither; `no_structure`, `small_scope`, `no_vector`: the vector channel cannot judge (random-like vectors, under 16 sampled chunks, no query vector), so every match counts.',
        }),
        coverage: z.number().openapi({ description: 'The best text match’s share of the query’s idf weight.' }),
        nearness: z.number().nullable().openapi({
          description:
            'The nearest chunk’s similarity in spreads from the median similarity of pairs of the scope’s chunks; null when not judged.',
        }),
        domain: z.number().nullable().openapi({
          description:
            'The query’s median similarity to the scope’s sampled chunks, in the same spreads: how far the query is from the documents’ domain as a whole; null when not judged.',
        }),
      })
      .nullable()
      .openapi({
        description:
          'Hybrid mode: whether the query is on topic (search/evidence.ts); null in text and vector mode, where every match counts.',
      }),
    typo_tolerance: z
      .object({
        enabled: z.boolean(),
        source: z.enum(['request', 'setting']).openapi({ description: '`request`: typo_tolerance; `setting`: TYPO_TOLERANCE.' }),
        corrections: z.array(
          z.object({
            word: z.string().openapi({ description: 'The query word as written.' }),
            lexeme: z.string().openapi({ description: 'Its normalised form, which no searched document holds.' }),
            correction: z.string().openapi({ description: 'The normalised form (lexeme) it was read as.' }),
            edits: z.number().int().openapi({ description: 'Edits between them (1 or 2).' }),
            chunks: z.number().int().openapi({ description: 'Searched chunks holding the correction.' }),
          }),
        ),
      })
      .openapi({ description: 'Typo tolerance in force and what it read.' }),
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
    correction: z
      .object({
        query: z.string().openapi({
          description: 'The query as read, each corrected word replaced: "showing results for …".',
          example: 'diabetes treatment',
        }),
        words: z.array(
          z.object({
            word: z.string().openapi({ example: 'diabetis' }),
            correction: z
              .string()
              .openapi({ description: 'How the searched documents write the word it was read as.', example: 'diabetes' }),
            edits: z.number().int().openapi({ example: 1 }),
          }),
        ),
      })
      .nullable()
      .openapi({ description: 'The spelling corrections typo tolerance made (null: none).' }),
    reason: z
      .object({
        code: z.enum(['no_documents', 'no_documents_pass_filter', 'below_score_threshold', 'operators_left_nothing', 'no_match']).openapi({
          description:
            '`no_documents`: the searched collections hold no indexed document; `no_documents_pass_filter`: none passes `filter` and `tags`, so the query was not the cause (see `warnings`); `below_score_threshold`: every result scored below `score_threshold`; `operators_left_nothing`: the same search without the query’s "phrases" and -exclusions finds results, and none passes them; `no_match`: documents were searched and none matched.',
        }),
        message: z.string().openapi({
          example:
            'No document in the searched collections passes the filter, so nothing was searched: the query’s wording is not the cause.',
        }),
      })
      .nullable()
      .openapi({ description: 'Why the answer is empty; null when there are results.' }),
    warnings: z
      .array(
        z.object({
          code: z.enum(['string_compared_with_number', 'number_compared_with_string', 'unknown_field', 'value_not_found']),
          field: z.string().openapi({ description: 'The metadata key as the filter wrote it.', example: 'year' }),
          message: z.string().openapi({
            example:
              '"year" holds only numbers in the searched documents, and "2024" is a string, which never matches a number: write it without quotes.',
          }),
          did_you_mean: z
            .array(z.string())
            .optional()
            .openapi({ description: 'Keys or values of the searched documents that differ only in case.' }),
        }),
      )
      .openapi({ description: 'Filter clauses that cannot match as written, read when a filtered search found nothing.' }),
    explain: SearchExplain.optional(),
    // Described on the request's `facets` (a description here would wrap the component's $ref).
    facets: FacetsSchema.optional(),
  })
  .openapi('SearchResponse');

const searchRoute = createRoute({
  method: 'post',
  path: '/api/v1/search',
  operationId: 'searchDocuments',
  tags: ['Search'],
  summary: 'Hybrid search',
  description:
    'BM25 full-text plus vector search over the collections the key may read; only indexed chunks of live documents count. While organizations share the daemon, searches and lists of one organization run at most `SEARCH_CONCURRENCY_PER_ORG` at once (alone, `DB_POOL_MAX`); past the `SEARCH_QUEUE_PER_ORG` waiting, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.',
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
    typoTolerance: b.typo_tolerance,
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
