import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { App } from '../app.js';
import { bearerAuth } from '../auth/middleware.js';
import { buildMcpServer } from '../mcp/server.js';
import type { AppDeps } from '../types.js';

/**
 * /mcp: Streamable HTTP in stateless mode (a server and transport per request, JSON responses).
 * The same Bearer middleware runs first, so a request without a valid key gets the 401 envelope
 * and never reaches MCP.
 */
export function registerMcpRoutes(app: App, deps: AppDeps): void {
  app.use('/mcp', bearerAuth(deps));
  app.all('/mcp', async (c) => {
    const server = buildMcpServer(deps, c.get('caller'));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  });
}
