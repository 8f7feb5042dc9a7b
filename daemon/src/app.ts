import { registerProtectedResourceMetadata, withBearerChallenge } from './mcp/auth-discovery.js';
import { randomUUID } from 'node:crypto';
import { anonymousBudget, apiGuard, publicApiGuard } from './routes/guard.js';
import { closeUnreadBodies, requestBodyLimit } from './limits/body-size.js';
import { requestLog } from './usage/middleware.js';
import { rateLimitHeadersOnUnguardedAnswers } from './routes/unguarded-answers.js';
import { canonicalContentType } from './routes/media-type.js';
import { AppError } from './errors.js';
import { newRouter, respondError, toAppError, type App } from './routes/router.js';
import { isConnectFailure, type DatabaseAvailability } from './db/availability.js';
import type { WorkerStatus } from './worker/supervisor.js';
import { readiness } from './worker/health.js';
import { buildOpenApiDocument, registerDocsRoutes } from './routes/schema.js';
import { registerKeyRoutes } from './routes/keys.js';
import { registerUsageRoutes } from './routes/usage.js';
import { registerBillingRoutes } from './routes/billing.js';
import { registerCollectionRoutes } from './routes/collections.js';
import { registerDocumentRoutes } from './routes/documents.js';
import { registerFileRoutes } from './routes/files.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerMcpRoutes } from './mcp/route.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { sessionOrBearer } from './routes/session-guard.js';
import { createWebApp } from './web/index.js';
import type { AppDeps } from './types.js';

// Endpoints under /api/v1 that need no credential.
const PUBLIC_API_PATHS = /^\/api\/v1\/(schema|docs|redoc)(\/.*)?$/;
// Endpoints that also accept the web UI's session cookie (docs/service-spec.md §4, Download rules).
const SESSION_API_PATHS = /^\/api\/v1\/documents\/[^/]+\/download\/?$/;
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** For a request path, the methods some registered route answers on it (trailing slashes ignored, as routing does). */
function methodsByPath(app: App): (path: string) => string[] {
  const table = app.routes
    .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
    .map((r) => ({
      method: r.method.toUpperCase(),
      re: new RegExp(
        `^${r.path
          .replace(/\/+$/, '')
          .replace(/[.+?^$()|[\]\\]/g, '\\$&')
          .replace(/:[^/]+/g, '[^/]+')}/?$`,
      ),
    }));
  return (path) => {
    const methods = new Set(table.filter((r) => r.re.test(path)).map((r) => r.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SEARCH_PATH = /^\/api\/v1\/search\/?$/;

/**
 * A search's outage answer is 500 SEARCH_UNAVAILABLE, the specification's code and status for an
 * unavailable search backend; every other call's is 503 SERVICE_UNAVAILABLE. With Retry-After when the request certainly had no effect, so any client
 * may repeat it (the SDK then retries even uploads); without it when a write lost its connection
 * midway and may have been applied (a COMMIT whose reply never came), so only idempotent calls are
 * repeated blindly.
 */
function databaseUnavailable(availability: DatabaseAvailability, nothingDone: boolean, path = ''): AppError {
  // A search has no effect to check: it is always safe to repeat, and its clients branch on the
  // specification's code for an unavailable search backend.
  if (SEARCH_PATH.test(path)) {
    return new AppError('SEARCH_UNAVAILABLE', 'Search is unavailable: the database is unreachable; retry shortly.', undefined, {
      'Retry-After': String(availability.retryAfterSeconds),
    });
  }
  if (!nothingDone) {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      'The database connection was lost while handling this request, which may or may not have taken effect; check before repeating it.',
    );
  }
  return new AppError('SERVICE_UNAVAILABLE', 'The database is unreachable; retry shortly.', undefined, {
    'Retry-After': String(availability.retryAfterSeconds),
  });
}

export interface AppOptions {
  /** The job worker of this process, when it runs one: /readyz reports it. */
  workerStatus?: () => WorkerStatus;
  /** True once the process is stopping (server.ts): requests are refused, keep-alive sockets closed. */
  draining?: () => boolean;
}

export function createApp(deps: AppDeps, opts: AppOptions = {}): App {
  const app = newRouter();
  const availability = deps.availability;

  app.use('*', async (c, next) => {
    c.set('startedAt', Date.now());
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    c.set('logger', deps.logger.child({ requestId }));
    c.header('X-Request-Id', requestId);
    await next();
  });
  // Request log (usage metering): outermost after the request id, so response times include auth and limits.
  app.use('*', requestLog(deps));
  const anonymous = anonymousBudget(deps);
  app.use('*', rateLimitHeadersOnUnguardedAnswers(deps, anonymous));
  app.use('*', closeUnreadBodies());
  // A stopping process takes no new request, on a new connection or a kept-alive one: 503 with
  // Retry-After (nothing was done), and the connection closes. Requests already in flight finish,
  // and their connection closes after the answer, so a client's next request goes elsewhere.
  app.use('*', async (c, next) => {
    if (opts.draining?.()) {
      c.header('Connection', 'close');
      return respondError(
        c,
        new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry shortly.', undefined, { 'Retry-After': '1' }),
      );
    }
    await next();
    if (opts.draining?.()) c.res.headers.set('Connection', 'close');
  });
  // While the database is known to be down, API calls answer 503 at once instead of each waiting on
  // a connection attempt (db/availability.ts probes and lifts this as soon as it answers again).
  // After closeUnreadBodies, so an upload refused this way closes its connection like any other.
  app.use('*', async (c, next) => {
    if (availability.isDown && !PUBLIC_API_PATHS.test(c.req.path) && /^\/(api|mcp)(\/|$)/.test(c.req.path)) {
      return respondError(c, databaseUnavailable(availability, true, c.req.path));
    }
    return next();
  });

  app.onError(async (err, c) => {
    let appErr = toAppError(err);
    // A server-side failure explained by the database being unreachable is an outage, not a bug
    // (logged once, by the tracker), also when a handler wrapped the driver's error in its own
    // (UPLOAD_FAILED, SEARCH_UNAVAILABLE).
    const outage = appErr.status >= 500 && (appErr.status === 503 || (await availability.explains(err, c.get('startedAt'))));
    if (outage && appErr.status !== 503) {
      appErr = databaseUnavailable(availability, READ_METHODS.has(c.req.method) || isConnectFailure(err), c.req.path);
    }
    if (appErr.status >= 500 && !outage) {
      (c.get('logger') ?? deps.logger).error({ err, requestId: c.get('requestId'), path: c.req.path }, 'request failed');
    }
    return respondError(c, appErr);
  });

  // A known path called with a method it does not have is 405 with `Allow`, not 404. The route table
  // is read on first use, when every route below is registered.
  let allowedMethods: ((path: string) => string[]) | undefined;
  app.notFound((c) => {
    allowedMethods ??= methodsByPath(app);
    const allow = allowedMethods(c.req.path);
    if (allow.length) {
      c.header('Allow', allow.join(', '));
      return respondError(
        c,
        new AppError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}; use ${allow.join(', ')}.`),
      );
    }
    return respondError(c, new AppError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}.`));
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const r = await readiness({ sql: deps.sql, availability, workerStatus: opts.workerStatus });
    return c.json(r.body, r.ready ? 200 : 503);
  });

  // Bearer auth, then the per-user rate limit (X-RateLimit-* headers, 429). /mcp counts too; the
  // schema, docs and health checks do not.
  const guard = apiGuard(deps, anonymous);
  const publicGuard = publicApiGuard(deps, anonymous);
  const keyOrSession = sessionOrBearer(deps, guard);
  app.use('/api/v1/*', async (c, next) => {
    if (PUBLIC_API_PATHS.test(c.req.path)) return publicGuard(c, next);
    if (c.req.method === 'GET' && SESSION_API_PATHS.test(c.req.path)) return keyOrSession(c, next);
    return guard(c, next);
  });
  app.use('/mcp', withBearerChallenge(deps, guard));
  // Every body's Content-Type is read one way (routes/media-type.ts), before the caps and routes read it.
  app.use('*', canonicalContentType());
  // Then every body is capped while it streams in (multipart uploads have their own limits).
  const bodyCap = requestBodyLimit(deps.config);
  app.use('/api/v1/*', bodyCap);
  app.use('/mcp', bodyCap);

  // Before the key routes: /keys/usage must never be read as a key uuid.
  registerUsageRoutes(app, deps);
  registerBillingRoutes(app, deps);
  registerKeyRoutes(app, deps);
  registerCollectionRoutes(app, deps);
  registerDocumentRoutes(app, deps);
  registerFileRoutes(app, deps);
  registerSearchRoutes(app, deps);
  registerMcpRoutes(app, deps);
  registerProtectedResourceMetadata(app, deps);
  registerWebhookRoutes(app, deps);

  registerDocsRoutes(app, deps, () => buildOpenApiDocument(app));

  // Web UI (server-rendered, session auth); / leads there.
  app.route('/app', createWebApp(deps));
  app.get('/', (c) => c.redirect('/app/', 302));
  return app;
}
