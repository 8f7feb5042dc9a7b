import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { isDatabaseUnavailable } from '../db/availability.js';
import { search } from '../search/service.js';
import { SCORE_MEANING } from '../search/score-scale.js';
import { noRelevantResults } from '../search/zero-answer.js';
import { listCollections } from '../collections/service.js';
import { documentDetail } from '../documents/read.js';
import { searchByTag } from '../documents/tags.js';
import { API_VERSION } from '../routes/schema.js';
import type { AppDeps, Caller } from '../types.js';

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

async function run(fn: () => Promise<{ text: string; data: Record<string, unknown> }>): Promise<ToolResult> {
  try {
    const { text, data } = await fn();
    return { content: [{ type: 'text', text }], structuredContent: data };
  } catch (err) {
    // Tools answer with the API's error codes, never a protocol error, so agents can react.
    const e =
      err instanceof AppError
        ? err
        : isDatabaseUnavailable(err)
          ? new AppError('SERVICE_UNAVAILABLE', 'The database is unreachable; retry shortly.')
          : new AppError('INTERNAL_ERROR', 'Internal error.');
    return {
      content: [{ type: 'text', text: `${e.code}: ${e.message}` }],
      structuredContent: { error: e.message, code: e.code },
      isError: true,
    };
  }
}

const snippet = (s: string, n = 300) => (s.length > n ? s.slice(0, n).trimEnd() + '…' : s);

/** One server per request (stateless transport), bound to the caller: tools see exactly what its key sees. */
export function buildMcpServer(deps: AppDeps, caller: Caller): McpServer {
  const server = new McpServer({ name: 'docsift', version: API_VERSION }, { capabilities: { tools: {} } });
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'search_documents',
    {
      title: 'Search documents',
      description:
        'Hybrid (BM25 full-text + semantic vector) search over the documents this API key can read. Returns the best-matching text chunks with document title, collection, tags and a relevance score in [0,1]. Use this first to answer questions from the knowledge base; quote phrases with "…" (every result contains them) and exclude words with -word (no result contains them). The ' +
        SCORE_MEANING +
        ' Do not answer from memory when it finds nothing.',
      inputSchema: {
        query: z.string().min(1).max(1000).describe('What to look for, in natural language or keywords.'),
        collection: z.string().optional().describe('Limit to one collection (its slug, from list_collections).'),
        limit: z.number().int().min(1).max(50).optional().describe('Number of results, 1–50 (default 5).'),
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
      },
      annotations: readOnly,
    },
    async (a) =>
      run(async () => {
        const r = await search(deps, caller, {
          query: a.query.trim(),
          collection: a.collection,
          limit: a.limit ?? 5,
          mode: 'hybrid',
          minScore: a.min_score,
          scoreThreshold: a.score_threshold,
        });
        const lines = r.results.map(
          (x, i) =>
            `${i + 1}. [${x.score.toFixed(3)}] ${x.title} — ${x.collection_name} (document ${x.document_id}, chunk ${x.chunk_index}${x.page ? `, page ${x.page}` : ''})\n   ${snippet(x.content).replace(/\n+/g, ' ')}`,
        );
        return {
          text: r.count
            ? `${r.count} result(s) for "${r.query}":\n${lines.join('\n')}`
            : noRelevantResults(r, { collection: a.collection }),
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
        'Finds all documents carrying a tag (exact, case-insensitive), optionally within one collection. Returns document metadata, not text; follow up with get_document_info.',
      inputSchema: {
        tag: z.string().min(1).describe('The tag, e.g. "invoices".'),
        collection: z.string().optional().describe('Collection slug.'),
      },
      annotations: readOnly,
    },
    async (a) =>
      run(async () => {
        const r = await searchByTag(deps, caller, a.tag, { collection: a.collection });
        const text = r.count
          ? `${r.count} document(s) tagged "${r.tag}":\n${r.documents.map((d) => `- ${d.title} (${d.uuid}) in ${d.collection_name}, ${d.status}`).join('\n')}`
          : `No documents tagged "${r.tag}".`;
        return { text, data: r as unknown as Record<string, unknown> };
      }),
  );
  return server;
}
