// Discovery for a bearer-only MCP server, as the MCP authorization specification asks of a protected
// resource: a 401 from /mcp names the protected-resource metadata (RFC 9728) in its
// WWW-Authenticate challenge (RFC 6750), and that metadata is served at both well-known locations a
// client derives from the /mcp URL. docsift issues API keys itself (web UI, CLI, API), so the
// metadata lists no authorization server and says the key goes in the Authorization header: a client
// such as mcp-remote, which still tries OAuth dynamic client registration at /register (RFC 7591),
// gets an OAuth error there whose description says the API key was refused, and shows that instead
// of "Connection closed".
import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../errors.js';
import type { App } from '../routes/router.js';
import type { AppDeps, AppEnv } from '../types.js';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

function baseUrl(deps: AppDeps, c: Context<AppEnv>): string {
  return (deps.config.PUBLIC_URL ?? new URL(c.req.url).origin).replace(/\/+$/, '');
}

const quoted = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

/**
 * The challenge of a refused /mcp request. No credentials: only where the metadata is. A key that
 * was sent but refused (unknown, revoked, expired, disabled account): error="invalid_token" with the
 * API's message as error_description.
 */
export function bearerChallenge(metadataUrl: string, refused?: AppError): string {
  const params = [`resource_metadata=${quoted(metadataUrl)}`];
  if (refused) params.push(`error="invalid_token"`, `error_description=${quoted(refused.message)}`);
  return `Bearer ${params.join(', ')}`;
}

/** Wraps the /mcp guard: its 401s gain the WWW-Authenticate challenge. */
export function withBearerChallenge(deps: AppDeps, guard: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      return await guard(c, next);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 401) throw err;
      const sent = /^\s*bearer\s+\S/i.test(c.req.header('authorization') ?? '');
      const challenge = bearerChallenge(`${baseUrl(deps, c)}${PROTECTED_RESOURCE_PATH}/mcp`, sent ? err : undefined);
      throw new AppError(err.code, err.message, err.fields, { ...err.headers, 'WWW-Authenticate': challenge });
    }
  };
}

/**
 * RFC 9728 metadata, at the root well-known path (resource: the server) and the /mcp-suffixed one (resource: /mcp),
 * and the refusal of OAuth client registration.
 */
export function registerProtectedResourceMetadata(app: App, deps: AppDeps): void {
  const base = (c: Context<AppEnv>) => baseUrl(deps, c);
  const metadata = (c: Context<AppEnv>, resourcePath: string) => {
    const base = baseUrl(deps, c);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.json({
      resource: `${base}${resourcePath}`,
      authorization_servers: [],
      bearer_methods_supported: ['header'],
      resource_name: 'docsift',
      resource_documentation: `${base}/api/v1/docs/`,
    });
  };
  app.get(PROTECTED_RESOURCE_PATH, (c) => metadata(c, ''));
  // Registration is refused whatever is sent, and the key is not looked up here (no oracle for
  // guessing keys outside the rate limit): the description only says whether a key came with it.
  app.post('/register', (c) => {
    const sent = /^\s*bearer\s+\S/i.test(c.req.header('authorization') ?? '');
    const how = `docsift has no OAuth sign-in: create an API key in the web UI (Keys) or with "docsift keys create", and send it as the header "Authorization: Bearer svc_…" (mcp-remote: --header "Authorization:Bearer svc_…").`;
    return c.json(
      {
        error: 'invalid_token',
        error_description: sent ? `Invalid API key: ${base(c)}/mcp refused the key sent. ${how}` : `API key required. ${how}`,
      },
      401,
    );
  });
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, (c) => metadata(c, '/mcp'));
}
