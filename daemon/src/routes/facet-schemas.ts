// The OpenAPI schemas of highlights and facets: search's `highlights` per result, and the facet
// fields and counts that search and the document list share.
import { z } from '@hono/zod-openapi';
import { FACET_FIELDS_RULE, FACET_MAX_DOCUMENTS, FACET_MAX_VALUES } from '../search/facets.js';

export const HighlightsSchema = z
  .array(
    z.object({
      start: z.number().int().openapi({ description: 'Offset of the first matched code unit in `content`.' }),
      end: z.number().int().openapi({ description: 'Offset just past the last matched code unit (exclusive).' }),
    }),
  )
  .openapi('Highlights', {
    description:
      'The spans of `content` that match the query, sorted and never overlapping. Offsets count UTF-16 code units, as JavaScript strings index (`content.slice(start, end)`; in Python, index `content.encode("utf-16-le")` by 2 × offset). A word is marked when it matches a query word as search matches it (stemmed under the collection’s language: "running" marks "runs"); in Chinese, Japanese, Korean and Thai, where the query’s words occur. Excluded words are never marked; a result found by meaning alone may have none.',
    example: [{ start: 4, end: 11 }],
  });

/** The `facets` request field; `counted` says which documents the operation counts over. */
export const facetsField = (counted: string) =>
  z
    .array(z.string())
    .optional()
    .openapi({
      description: `Fields to count values of: ${FACET_FIELDS_RULE} 400 VALIDATION_FAILED names a bad field (\`facets[1]\`) or the cap (\`facets\`). ${counted}`,
      example: ['tags', 'metadata.dept'],
    });

export const FacetsSchema = z
  .record(z.string(), z.array(z.object({ value: z.union([z.string(), z.number(), z.boolean()]), count: z.number().int() })))
  .openapi('Facets', {
    description: `Per requested field, its values with how many documents carry each, the most frequent first (ties by value), at most ${FACET_MAX_VALUES}. A value of an array field counts each string; a document lacking the field counts nowhere. The list counts at most the newest ${FACET_MAX_DOCUMENTS} matching documents.`,
    example: {
      tags: [{ value: 'contracts', count: 12 }],
      'metadata.dept': [
        { value: 'legal', count: 12 },
        { value: 'finance', count: 3 },
      ],
    },
  });

/** GET /documents/facets/'s answer. */
export const ListFacetsResponse = z
  .object({
    facets: FacetsSchema,
    documents: z
      .number()
      .int()
      .openapi({ description: `Documents counted over (at most ${FACET_MAX_DOCUMENTS}, newest first).` }),
    truncated: z.boolean().openapi({ description: `More than ${FACET_MAX_DOCUMENTS} documents matched; the newest were counted.` }),
  })
  .openapi('DocumentFacets');
