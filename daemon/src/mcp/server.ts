import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError, ERROR_CODES, errorBody } from '../errors.js';
import { isDatabaseUnavailable } from '../db/availability.js';
import { search } from '../search/service.js';
import { parseFilter } from '../filters/parse.js';
import { FILTER_SUMMARY } from '../filters/describe.js';
import { SCORE_MEANING } from '../search/score-scale.js';
import { correctionLine, noRelevantResults } from '../search/zero-answer.js';
import { listCollections } from '../collections/service.js';
import { documentDetail } from '../documents/read.js';
import { searchByTag } from '../documents/tags.js';
import { SearchResponseSchema } from '../routes/search.js';
import { CollectionSchema } from '../routes/collections.js';
import { DocumentDetail, DocumentListItem } from '../routes/document-schemas.js';
import { TAG_RESULTS_MAX } from '../documents/tags.js';
import { createRequire } from 'node:module';
import type { AppDeps, Caller, SearchNote } from '../types.js';

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/**
 * A database outage answers with the code of the tool's REST equivalent: search_documents the
 * specification's SEARCH_UNAVAILABLE (as POST /search/), the other tools SERVICE_UNAVAILABLE (as
 * their GETs). Every tool is read-only, so a retry is always safe; a tool result has no
 * Retry-After header, so the message carries the wait.
 */
function outageError(tool: 'search' | 'other', retryAfterSeconds: number): AppError {
  const retry = `retry in ${retryAfterSeconds} s.`;
  return tool === 'search'
    ? new AppError('SEARCH_UNAVAILABLE', `Search is unavailable: the database is unreachable; ${retry}`)
    : new AppError('SERVICE_UNAVAILABLE', `The database is unreachable; ${retry}`);
}

async function runTool(fn: () => Promise<{ text: string; data: Record<string, unknown> }>, outage: () => AppError): Promise<ToolResult> {
  try {
    const { text, data } = await fn();
    return { content: [{ type: 'text', text }], structuredContent: data };
  } catch (err) {
    // Tools answer with the API's error codes, never a protocol error, so agents can react.
    const e = err instanceof AppError ? err : isDatabaseUnavailable(err) ? outage() : new AppError('INTERNAL_ERROR', 'Internal error.');
    // The REST envelope (errorBody): `fields` names each bad input, as a 400 of the API would.
    const body = errorBody(e);
    return {
      content: [{ type: 'text', text: `${e.code}: ${e.message}${body.fields ? `\nfields: ${JSON.stringify(body.fields)}` : ''}` }],
      structuredContent: { ...body },
      isError: true,
    };
  }
}

/** The daemon's package version: what `initialize` reports as serverInfo.version. */
const PACKAGE_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** Sent once at `initialize`: how an agent should use these tools together. */
export const MCP_INSTRUCTIONS = `docsift searches the documents this API key can read (PDF, Office, HTML, Markdown, text…), grouped in collections.
Start with search_documents for any question the documents may answer: it returns the best-matching passages with their document, collection, tags and a relevance score in [0,1]; cite the title (and page when given).
Use list_collections to see what is there and to get slugs for narrowing a search; search_by_tag lists documents carrying a tag; get_document_info returns one document's full text by the document_id of a search result.
Tools are read-only. A failed call answers with isError and a code (for example COLLECTION_NOT_FOUND, RATE_LIMIT_EXCEEDED): react to the code. SEARCH_UNAVAILABLE (search_documents) and SERVICE_UNAVAILABLE (the other tools) mean a passing outage: retry the same call after the wait the error names. A VALIDATION_FAILED also carries fields, the path of each bad argument (for example filter.and[1].year.gt) with its messages.`;

/**
 * A tool's outputSchema: the REST answer's shape, whose fields are all present on success, plus the
 * REST error envelope of a failed call (isError): `error`, `code` and `fields`. Clients validate
 * every structuredContent against it, failures included, so the top-level fields are optional and
 * the nested shapes stay exact.
 */
function outputOf<T extends z.ZodObject>(success: T) {
  return success.partial().extend({
    error: z.string().optional().describe('Only when isError: what went wrong.'),
    code: z.enum(ERROR_CODES).optional().describe('Only when isError: the API error code, e.g. COLLECTION_NOT_FOUND.'),
    fields: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .describe("Only when isError with VALIDATION_FAILED: each bad input's path (e.g. filter.and[1].year.gt) → its messages."),
  });
}

/** search_by_tag's default page: an agent's context is small, and get_document_info follows up. */
const TAG_DEFAULT_LIMIT = 20;

const snippet = (s: string, n = 300) => (s.length > n ? s.slice(0, n).trimEnd() + '…' : s);

/** One server per request (stateless transport), bound to the caller: tools see exactly what its key sees. */
export function buildMcpServer(deps: AppDeps, caller: Caller, note?: SearchNote): McpServer {
  const server = new McpServer(
    { name: 'docsift', version: PACKAGE_VERSION },
    { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS },
  );
  const readOnly = { readOnlyHint: true, openWorldHint: false };
  // A request that reaches a tool is a tool call in the request log (the others are protocol calls).
  const runAs = (tool: 'search' | 'other') => (fn: Parameters<typeof runTool>[0]) => {
    if (note) note.mcpToolCall = true;
    return runTool(fn, () => outageError(tool, deps.availability.retryAfterSeconds));
  };
  const run = runAs('other');

  server.registerTool(
    'search_documents',
    {
      title: 'Search documents',
      description:
        'Hybrid (BM25 full-text + semantic vector) search over the documents this API key can read. Returns the best-matching text chunks with document title, collection, tags and a relevance score in [0,1]. Use this first to answer questions from the knowledge base; quote phrases with "…" (every result contains them) and exclude words with -word (no result contains them). A misspelled word is read as the nearest word the documents hold, and the answer says so ("Showing results for …"). An empty answer gives its reason (for example no_documents_pass_filter: the filter, not the query, left nothing) and warnings about the filter. The ' +
        SCORE_MEANING +
        ' Do not answer from memory when it finds nothing.',
      inputSchema: {
        query: z.string().min(1).max(1000).describe('What to look for, in natural language or keywords.'),
        collection: z.string().optional().describe('Limit to one collection (its slug, from list_collections).'),
        collections: z.array(z.string()).optional().describe('Several collections at once (slugs).'),
        filter: z.record(z.string(), z.unknown()).optional().describe(FILTER_SUMMARY),
        limit: z.number().int().min(1).max(50).optional().describe('Number of results, 1–50 (default 5).'),
        tags: z
          .array(z.string().min(1))
          .max(50)
          .optional()
          .describe('Only passages of documents carrying any of these tags (case-insensitive).'),
        mode: z
          .enum(['hybrid', 'text', 'vector'])
          .optional()
          .describe('hybrid (default): keywords and meaning, fused; text: exact words only (BM25); vector: meaning only.'),
        min_score: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe(
            'Similarity floor, 0–1: minimum cosine similarity of a result found by meaning only (exact word matches are always kept). Default: computed per query from the collections’ unrelated text; 0 lists the nearest chunks however unrelated.',
          ),
        score_threshold: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe(
            'Drop results whose score (as shown in the results) is below this, 0–1; e.g. 0.5 keeps results at least half as good as the best.',
          ),
        typo_tolerance: z
          .boolean()
          .optional()
          .describe('Read a word no document holds as the nearest one they do (default true); false takes every word as written.'),
      },
      outputSchema: outputOf(SearchResponseSchema),
      annotations: readOnly,
    },
    async (a) =>
      runAs('search')(async () => {
        const r = await search(deps, caller, {
          query: a.query.trim(),
          collection: a.collection,
          collections: a.collections,
          filter: a.filter === undefined ? undefined : parseFilter(a.filter),
          limit: a.limit ?? 5,
          mode: a.mode ?? 'hybrid',
          ...(a.tags?.length ? { tags: a.tags } : {}),
          minScore: a.min_score,
          note,
          scoreThreshold: a.score_threshold,
          typoTolerance: a.typo_tolerance,
        });
        const lines = r.results.map(
          (x, i) =>
            `${i + 1}. [${x.score.toFixed(3)}] ${x.title} — ${x.collection_name} (document ${x.document_id}, chunk ${x.chunk_index}${x.page ? `, page ${x.page}` : ''})\n   ${snippet(x.content).replace(/\n+/g, ' ')}`,
        );
        return {
          text: [
            correctionLine(r),
            r.count ? `${r.count} result(s) for "${r.query}":\n${lines.join('\n')}` : noRelevantResults(r, { collection: a.collection }),
          ]
            .filter(Boolean)
            .join('\n'),
          data: r as unknown as Record<string, unknown>,
        };
      }),
  );

  server.registerTool(
    'list_collections',
    {
      title: 'List collections',
      description:
        'Lists every collection this API key can read, with slug, description, document and chunk counts. Use the slug to narrow search_documents or search_by_tag.',
      inputSchema: {},
      outputSchema: outputOf(z.object({ count: z.number().int(), collections: z.array(CollectionSchema) })),
      annotations: readOnly,
    },
    async () =>
      run(async () => {
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
      }),
  );

  server.registerTool(
    'get_document_info',
    {
      title: 'Get document details',
      description:
        'Returns one document’s metadata, processing status, full extracted text and its chunks, by document uuid (document_id from search results).',
      inputSchema: { document_id: z.string().describe('The document uuid.') },
      outputSchema: outputOf(DocumentDetail),
      annotations: readOnly,
    },
    async (a) =>
      run(async () => {
        const d = await documentDetail(deps, caller, a.document_id);
        const text = `${d.title} (${d.source_type}, ${d.status}) in ${d.collection_name}; tags: ${d.tags.join(', ') || 'none'}; ${d.chunks_count} chunk(s).${d.error_message ? `\nError: ${d.error_message}` : ''}\n\n${snippet(d.content_text, 4000)}`;
        return { text, data: d as unknown as Record<string, unknown> };
      }),
  );

  server.registerTool(
    'search_by_tag',
    {
      title: 'Find documents by tag',
      description:
        'Finds documents carrying a tag (exact, case-insensitive), newest first, optionally within one collection; `limit` caps how many (default 20). Returns document metadata, not text; follow up with get_document_info.',
      inputSchema: {
        tag: z.string().min(1).describe('The tag, e.g. "invoices".'),
        collection: z.string().optional().describe('Collection slug.'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(TAG_RESULTS_MAX)
          .optional()
          .describe(`Most documents to return, 1–${TAG_RESULTS_MAX} (default ${TAG_DEFAULT_LIMIT}), newest first.`),
      },
      outputSchema: outputOf(z.object({ tag: z.string(), count: z.number().int(), documents: z.array(DocumentListItem) })),
      annotations: readOnly,
    },
    async (a) =>
      run(async () => {
        const r = await searchByTag(deps, caller, a.tag, { collection: a.collection, limit: a.limit ?? TAG_DEFAULT_LIMIT });
        const text = r.count
          ? `${r.count} document(s) tagged "${r.tag}":\n${r.documents.map((d) => `- ${d.title} (${d.uuid}) in ${d.collection_name}, ${d.status}`).join('\n')}`
          : `No documents tagged "${r.tag}".`;
        return { text, data: r as unknown as Record<string, unknown> };
      }),
  );
  return server;
}
