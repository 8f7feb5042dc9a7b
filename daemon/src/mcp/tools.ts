import { z } from '@hono/zod-openapi';
import { ERROR_CODES } from '../errors.js';
import { search } from '../search/service.js';
import { SCORE_MEANING } from '../search/score-scale.js';
import { correctionLine, noRelevantResults } from '../search/zero-answer.js';
import { listCollections } from '../collections/service.js';
import { documentDetail } from '../documents/read.js';
import { searchByTag, TAG_RESULTS_MAX } from '../documents/tags.js';
import { SearchRequestSchema, SearchResponseSchema, searchRequest } from '../routes/search.js';
import { CollectionSchema } from '../routes/collections.js';
import { DocumentDetail, TaggedDocuments, TagParams, TagQuery } from '../routes/document-schemas.js';
import { UuidParam } from '../routes/router.js';
import type { AppDeps, Caller, SearchNote } from '../types.js';

// The four tools. Each input is its REST route's zod schema (routes/): the fields, caps, messages
// and descriptions are REST's, and what MCP names differently or adds is written here, named.

export interface ToolContext {
  deps: AppDeps;
  caller: Caller;
  note?: SearchNote;
}

export interface McpTool<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodType;
  /** The code of a database outage: search_documents SEARCH_UNAVAILABLE (as POST /search/), the others SERVICE_UNAVAILABLE (as their GETs). */
  outage: 'search' | 'other';
  run(ctx: ToolContext, args: z.output<I>): Promise<{ text: string; data: Record<string, unknown> }>;
}

const defineTool = <I extends z.ZodType>(tool: McpTool<I>) => tool as unknown as McpTool;

/**
 * A tool's outputSchema: the REST answer's shape, whose fields are all present on success, plus the
 * REST error envelope of a failed call (isError): `error`, `code` and `fields`. Clients validate
 * every structuredContent against it, failures included, so the top-level fields are optional and
 * the nested shapes stay exact.
 */
function outputOf<T extends z.ZodObject>(success: T) {
  return success.partial().extend({
    error: z.string().optional().openapi({ description: 'Only when isError: what went wrong.' }),
    code: z.enum(ERROR_CODES).optional().openapi({ description: 'Only when isError: the API error code, e.g. COLLECTION_NOT_FOUND.' }),
    fields: z.record(z.string(), z.array(z.string())).optional().openapi({
      description: "Only when isError with VALIDATION_FAILED: each bad input's path (e.g. filter.and[1].year.gt) → its messages.",
    }),
  });
}

/** search_by_tag's default page: an agent's context is small, and get_document_info follows up. */
const TAG_DEFAULT_LIMIT = 20;

const snippet = (s: string, n = 300) => (s.length > n ? s.slice(0, n).trimEnd() + '…' : s);

/** A result's text for an agent: its matched spans (`highlights`) in **bold**, from the first one on when it lies past `n`. */
function markedSnippet(content: string, spans: readonly { start: number; end: number }[], n = 300): string {
  const from = spans[0] && spans[0].end > n ? Math.max(0, spans[0].start - 40) : 0;
  let out = '';
  let at = from;
  for (const h of spans) {
    if (h.start < from || h.start >= from + n) continue;
    out += `${content.slice(at, h.start)}**${content.slice(h.start, h.end)}**`;
    at = h.end;
  }
  const text = out + content.slice(at, Math.max(at, from + n));
  return `${from ? '…' : ''}${text}${from + n < content.length ? '…' : ''}`;
}

const searchDocuments = defineTool({
  name: 'search_documents',
  title: 'Search documents',
  description:
    'Hybrid (BM25 full-text + semantic vector) search over the documents this API key can read. Returns the best-matching text chunks with document title, collection, tags, metadata and a relevance score in [0,1]. Use this first to answer questions from the knowledge base; quote phrases with "…" (every result contains them) and exclude words with -word (no result contains them). A misspelled word is read as the nearest word the documents hold, and the answer says so ("Showing results for …"). An empty answer gives its reason (for example no_documents_pass_filter: the filter, not the query, left nothing) and warnings about the filter. The ' +
    SCORE_MEANING +
    ' Do not answer from memory when it finds nothing.',
  // POST /search/'s body; `collection_id` is its alias of `collection` for older clients, which a tool has none of.
  input: SearchRequestSchema.omit({ collection_id: true }),
  output: outputOf(SearchResponseSchema),
  outage: 'search',
  async run({ deps, caller, note }, args) {
    const r = await search(deps, caller, searchRequest(args, note));
    const lines = r.results.map(
      (x, i) =>
        `${i + 1}. [${x.score.toFixed(3)}] ${x.title} — ${x.collection_name} (document ${x.document_id}, chunk ${x.chunk_index}${x.page ? `, page ${x.page}` : ''})\n   ${markedSnippet(x.content, x.highlights).replace(/\n+/g, ' ')}`,
    );
    return {
      text: [
        correctionLine(r),
        r.count ? `${r.count} result(s) for "${r.query}":\n${lines.join('\n')}` : noRelevantResults(r, { collection: args.collection }),
      ]
        .filter(Boolean)
        .join('\n'),
      data: r as unknown as Record<string, unknown>,
    };
  },
});

const listCollectionsTool = defineTool({
  name: 'list_collections',
  title: 'List collections',
  description:
    'Lists every collection this API key can read, with slug, description, document and chunk counts. Use the slug to narrow search_documents or search_by_tag.',
  // GET /collections/ takes no input.
  input: z.strictObject({}),
  output: outputOf(z.object({ count: z.number().int(), collections: z.array(CollectionSchema) })),
  outage: 'other',
  async run({ deps, caller }) {
    const cols = await listCollections(deps, caller);
    const text = cols.length
      ? cols
          .map(
            (c) =>
              `- ${c.name} (slug: ${c.slug}): ${c.document_count} document(s), ${c.total_chunks} chunk(s)${c.description ? ` — ${snippet(c.description, 200)}` : ''}`,
          )
          .join('\n')
      : 'No collections are visible to this key.';
    return { text, data: { count: cols.length, collections: cols } };
  },
});

const getDocumentInfo = defineTool({
  name: 'get_document_info',
  title: 'Get document details',
  description:
    'Returns one document’s fields (title, tags, metadata), processing status, full extracted text and its chunks, by document uuid (document_id from search results).',
  // GET /documents/{uuid}, its path parameter named as search results name it.
  input: z.strictObject({
    document_id: UuidParam.shape.uuid.openapi({ description: 'The document uuid: a search result’s `document_id`.' }),
  }),
  output: outputOf(DocumentDetail),
  outage: 'other',
  async run({ deps, caller }, { document_id }) {
    const d = await documentDetail(deps, caller, document_id);
    const text = `${d.title} (${d.source_type}, ${d.status}) in ${d.collection_name}; tags: ${d.tags.join(', ') || 'none'}; ${d.chunks_count} chunk(s).${d.error_message ? `\nError: ${d.error_message}` : ''}\n\n${snippet(d.content_text, 4000)}`;
    return { text, data: d as unknown as Record<string, unknown> };
  },
});

const searchByTagTool = defineTool({
  name: 'search_by_tag',
  title: 'Find documents by tag',
  description:
    'Finds documents carrying a tag (exact, case-insensitive), newest first, optionally within one collection; `limit` caps how many (default 20). Returns document fields, not text; follow up with get_document_info.',
  // GET /tags/{tag}/documents, plus a page size: an agent's context is smaller than a REST client's.
  input: z.strictObject({
    ...TagParams.shape,
    ...TagQuery.shape,
    limit: z
      .number()
      .int()
      .min(1)
      .max(TAG_RESULTS_MAX)
      .optional()
      .openapi({ description: `Most documents to return, 1–${TAG_RESULTS_MAX} (default ${TAG_DEFAULT_LIMIT}), newest first.` }),
  }),
  output: outputOf(TaggedDocuments),
  outage: 'other',
  async run({ deps, caller }, a) {
    const r = await searchByTag(deps, caller, a.tag, { collection: a.collection, limit: a.limit ?? TAG_DEFAULT_LIMIT });
    const text = r.count
      ? `${r.count} document(s) tagged "${r.tag}":\n${r.documents.map((d) => `- ${d.title} (${d.uuid}) in ${d.collection_name}, ${d.status}`).join('\n')}`
      : `No documents tagged "${r.tag}".`;
    return { text, data: r as unknown as Record<string, unknown> };
  },
});

export const TOOLS: readonly McpTool[] = [searchDocuments, listCollectionsTool, getDocumentInfo, searchByTagTool];
