import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { App } from '../routes/router.js';
import { buildMcpServer } from './server.js';
import type { AppDeps } from '../types.js';
import { isJsonMediaType } from '../net/media-type.js';
import { unsupportedMediaType } from '../routes/media-type.js';

/**
 * /mcp: Streamable HTTP in stateless mode (a server and transport per request, JSON responses).
 * app.ts guards /mcp with the same Bearer auth and rate limit as the API, so a request without a
 * valid key gets the 401 envelope and never reaches MCP.
 */
export function registerMcpRoutes(app: App, deps: AppDeps): void {
  app.all('/mcp', async (c) => {
    // A JSON-RPC body is JSON by the rule every route reads Content-Type with (a `+json` type too);
    // the transport, which looks for the text "application/json", is handed that verdict.
    if (c.req.method === 'POST') {
      if (!isJsonMediaType(c.req.header('content-type'))) throw unsupportedMediaType();
      c.req.raw.headers.set('content-type', 'application/json');
    }
    const server = buildMcpServer(deps, c.get('caller'), c.get('searchNote'));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  });
}
