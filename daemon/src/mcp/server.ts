import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { createRequire } from 'node:module';
import { AppError, errorBody } from '../errors.js';
import { isDatabaseUnavailable } from '../db/availability.js';
import type { AppDeps, Caller, SearchNote } from '../types.js';
import { parseToolArguments, toolJsonSchema } from './tool-schema.js';
import { TOOLS, type McpTool } from './tools.js';

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/**
 * A database outage answers with the code of the tool's REST equivalent: search_documents the
 * specification's SEARCH_UNAVAILABLE (as POST /search/), the other tools SERVICE_UNAVAILABLE (as
 * their GETs). Every tool is read-only, so a retry is always safe; a tool result has no
 * Retry-After header, so the message carries the wait.
 */
function outageError(tool: McpTool['outage'], retryAfterSeconds: number): AppError {
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
Start with search_documents for any question the documents may answer: it returns the best-matching passages with their document, collection, tags, metadata and a relevance score in [0,1]; cite the title (and page when given).
Use list_collections to see what is there and to get slugs for narrowing a search; search_by_tag lists documents carrying a tag; get_document_info returns one document's full text by the document_id of a search result.
Tools are read-only. A failed call answers with isError and a code (for example COLLECTION_NOT_FOUND, RATE_LIMIT_EXCEEDED): react to the code. SEARCH_UNAVAILABLE (search_documents) and SERVICE_UNAVAILABLE (the other tools) mean a passing outage: retry the same call after the wait the error names. A VALIDATION_FAILED also carries fields, the path of each bad argument (for example filter.and[1].year.gt, or an argument the tool does not take) with its messages.`;

const READ_ONLY = { readOnlyHint: true, openWorldHint: false };

/** The tools/list answer: the same for every caller, derived once from the schemas. */
let listed: Tool[] | undefined;
const listTools = (): Tool[] =>
  (listed ??= TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolJsonSchema(t.input, 'input') as Tool['inputSchema'],
    outputSchema: toolJsonSchema(t.output, 'output') as Tool['outputSchema'],
    annotations: READ_ONLY,
  })));

/** One server per request (stateless transport), bound to the caller: tools see exactly what its key sees. */
export function buildMcpServer(deps: AppDeps, caller: Caller, note?: SearchNote): Server {
  const server = new Server({ name: 'docsift', version: PACKAGE_VERSION }, { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = TOOLS.find((t) => t.name === params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}. See tools/list.`);
    // A request that reaches a tool is a tool call in the request log (the others are protocol calls).
    if (note) note.mcpToolCall = true;
    return runTool(
      async () => tool.run({ deps, caller, note }, parseToolArguments(tool.input, params.arguments)),
      () => outageError(tool.outage, deps.availability.retryAfterSeconds),
    );
  });
  return server;
}
