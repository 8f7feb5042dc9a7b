import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppDeps, AppEnv, Caller, SearchNote } from '../types.js';

/**
 * The endpoint recorded for an /mcp request that called no tool (initialize, notifications,
 * tools/list, the client's GET for a stream): a session makes several per tool call, so they are
 * counted like any request but left out of "recent requests", which lists the tool calls (`/mcp`).
 */
export const MCP_PROTOCOL_ENDPOINT = '/mcp (protocol)';

/** `/api/v1/keys/:uuid` → `/api/v1/keys/{uuid}`, the form the OpenAPI document uses. */
function endpointOf(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
}

/**
 * Records every authenticated request (those that got a caller: /api/v1/* and /mcp, including
 * 4xx/5xx and 429) in the request log. Registered first, so the response time covers auth and
 * rate limiting. Only an in-memory push happens here; the writer stores batches later.
 */
export function requestLog(deps: AppDeps): MiddlewareHandler<AppEnv> {
  if (!deps.config.METERING_ENABLED) return (_c, next) => next();
  const writer = deps.usageLog;
  return async (c, next) => {
    const ts = deps.clock.now();
    const started = performance.now();
    // The transports hand it to search() (routes/search.ts, mcp/route.ts), which fills it.
    const note: SearchNote = { query: null, resultCount: null, billable: false, mcpToolCall: false };
    c.set('searchNote', note);
    let failed = false;
    try {
      await next();
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      const caller = c.get('caller') as Caller | undefined;
      if (caller) {
        // The last matched route is the handler's; an unmatched path keeps the middleware's pattern.
        const endpoint = endpointOf(routePath(c, -1) || c.req.path);
        writer.push({
          ts,
          organizationId: caller.orgId,
          userId: caller.userId,
          keyId: caller.keyId,
          method: c.req.method,
          endpoint: endpoint === '/mcp' && !note.mcpToolCall ? MCP_PROTOCOL_ENDPOINT : endpoint,
          status: failed ? 500 : c.res.status,
          durationUs: (performance.now() - started) * 1000,
          query: note.query,
          resultCount: note.resultCount,
          billable: note.billable,
        });
      }
    }
  };
}
