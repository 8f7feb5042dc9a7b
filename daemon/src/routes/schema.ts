import type { OpenAPIHono } from '@hono/zod-openapi';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError } from '../errors.js';
import { API_VERSION } from '../api-version.js';
import { finishOpenApiDocument } from './openapi-finish.js';
import type { AppDeps, AppEnv } from '../types.js';

const API_DESCRIPTION = `docsift: self-hosted document search with hybrid full-text (BM25) and vector search.

Authenticate every request (except this schema) with \`Authorization: Bearer svc_…\`.
Errors always use the envelope \`{error, code, fields?}\`; \`fields\` appears only on validation failures.
Unknown routes answer 404 \`NOT_FOUND\`; malformed JSON answers 400 \`VALIDATION_FAILED\`; a JSON body over the size cap answers 413 \`PAYLOAD_TOO_LARGE\`.
Every response carries \`X-Request-Id\` (an incoming \`X-Request-Id\` of up to 128 safe characters is echoed).
Paths are served with and without the trailing slash. A known path called with another method answers 405
\`METHOD_NOT_ALLOWED\` with an \`Allow\` header.

Pagination: list endpoints take \`limit\` and \`cursor\` and return the next page in the headers
\`Link: <…>; rel="next"\` (RFC 8288) and \`X-Next-Cursor\`; the body stays the plain array of the
specification (documents, webhook deliveries). This is the convention for every new list. Two
reports whose body shape is fixed carry their cursor inside it under the same rule (pass it back as
\`cursor\`/\`before\`): usage (\`recent.next_cursor\`) and invoices (\`next_before\`).`;

export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key: `svc_` followed by 40 random characters.',
  });
  const doc = app.getOpenAPIDocument({
    openapi: '3.0.3',
    info: { title: 'docsift API', version: API_VERSION, description: API_DESCRIPTION },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ bearerAuth: [] }],
  });
  // Routes are registered without the trailing slash (the router serves both forms);
  // the document uses the canonical, slash-terminated form of docs/service-spec.md §4.
  doc.paths = Object.fromEntries(
    Object.entries(doc.paths ?? {}).map(([p, item]) => [p.startsWith('/api/') && !p.endsWith('/') ? p + '/' : p, item]),
  );
  documentBodyLimits(doc.paths as Record<string, Record<string, unknown>>);
  return finishOpenApiDocument(doc);
}

type Operation = {
  requestBody?: { description?: string; content?: Record<string, unknown> };
  responses?: Record<string, unknown>;
};

/** Every route that accepts JSON caps its body (limits/body-size.ts): each documents its limit and the 413. */
function documentBodyLimits(paths: Record<string, Record<string, unknown>>): void {
  for (const [p, item] of Object.entries(paths)) {
    for (const op of Object.values(item) as Operation[]) {
      if (!op?.requestBody?.content?.['application/json'] || !op.responses) continue;
      const textRoute = /^\/api\/v1\/collections\/\{[^}]+\}\/documents\/$/.test(p);
      const limit = textRoute
        ? 'A JSON body holds at most twice MAX_TEXT_DOCUMENT_BYTES plus 64 KiB (4 MiB + 64 KiB by default), or MAX_JSON_BODY_BYTES if that is larger'
        : 'The body holds at most MAX_JSON_BODY_BYTES (1 MiB by default)';
      op.requestBody.description = `${op.requestBody.description ? `${op.requestBody.description} ` : ''}${limit}; a larger one is refused with 413 PAYLOAD_TOO_LARGE while it streams in.`;
      op.responses['413'] = {
        description: 'Payload too large: PAYLOAD_TOO_LARGE',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    }
  }
}

const SWAGGER_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docsift API</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/v1/schema/', dom_id: '#ui' });</script></body></html>`;

const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** Schema always; interactive docs only in development (404 elsewhere). */
export function registerDocsRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, build: () => unknown): void {
  let cached: string | undefined;
  app.get('/api/v1/schema', (c) => {
    cached ??= JSON.stringify(build());
    return c.body(cached, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  const devOnly = () => {
    if (deps.config.NODE_ENV !== 'development')
      throw new AppError('NOT_FOUND', 'Interactive documentation is available only when NODE_ENV=development.');
  };
  app.get('/api/v1/docs', (c) => {
    devOnly();
    return c.html(SWAGGER_HTML);
  });
  // Redoc was dropped: its standalone bundle ships only from a CDN (blank offline) or with a React stack.
  // The old address leads to the local Swagger UI so bookmarks keep working.
  app.get('/api/v1/redoc', (c) => {
    devOnly();
    return c.redirect('/api/v1/docs/', 301);
  });
  app.get('/api/v1/docs/assets/:file', async (c) => {
    devOnly();
    const file = c.req.param('file');
    const type = SWAGGER_ASSETS[file];
    if (!type) throw new AppError('NOT_FOUND', 'Not found.');
    const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    return c.body(await readFile(path.join(dir, file)), 200, { 'content-type': type });
  });
}
