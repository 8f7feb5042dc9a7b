import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { FC } from 'hono/jsx';
import { loadSession, sessionCaller, type Session } from '../auth/sessions.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { AppDeps } from '../types.js';
import { registerAdminPages } from './admin-pages.js';
import { registerAuthPages } from './auth-pages.js';
import { registerCataloguePage } from './catalogue-page.js';
import { registerCollectionForms } from './collection-forms.js';
import { registerCollectionPage } from './collection-page.js';
import { registerDocumentPages } from './document-pages.js';
import { field, page, presessionTokenValid, safeEqual, type FormFields, type WebContext, type WebEnv } from './context.js';
import { registerKeyPages } from './keys/pages.js';
import { Bare, Layout } from './layout.js';
import { registerOverviewPages } from './overview-page.js';
import { registerSearchPage } from './search-page.js';
import { registerStaticRoutes } from './static.js';
import { registerUploadRoutes, STREAMED_UPLOAD } from './uploads.js';
import { registerUsagePage } from './usage-page.js';
import { mediaTypeEssence } from '../net/media-type.js';

// Form bodies are small; a text document may be as long as the API's multipart field limit.
const FORM_LIMIT = 64 * 1024;
const TEXT_DOCUMENT_FORM = /^\/app\/collections\/[^/]+\/text\/?$/;
const TEXT_FORM_LIMIT = 10 * 1024 * 1024 + FORM_LIMIT;

// Pages reachable without a session; everything else redirects to sign-in.
const PUBLIC_PATHS = /^\/app\/(sign-in|invite\/[^/]+|static\/[^/]+)\/?$/;

// Scripts and styles only from this origin: no inline script or style runs, even if some text
// were to slip through escaping. Forms may only post here; no framing (clickjacking).
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const ErrorView: FC<{ status: number; code: string; message: string; session: Session | null }> = ({ status, code, message, session }) => {
  const body = (
    <div class="error-page">
      <p class="code">
        {status} · {code}
      </p>
      <h1>
        {status === 404
          ? 'Not found'
          : status === 403
            ? 'Refused'
            : status === 429
              ? 'Slow down'
              : status >= 500
                ? 'Something went wrong'
                : 'That did not work'}
      </h1>
      <p class="section">{message}</p>
      <p class="section">
        <a href="/app/">Back to the overview</a>
      </p>
    </div>
  );
  return session ? (
    <Layout title={`Error ${status}`} session={session}>
      {body}
    </Layout>
  ) : (
    <Bare title={`Error ${status}`}>{body}</Bare>
  );
};

export function errorPage(c: WebContext, status: number, code: ErrorCode | string, message: string): Promise<Response> {
  return page(c, <ErrorView status={status} code={code} message={message} session={c.get('session') ?? null} />, status);
}

/** The web UI under /app/: server-rendered pages with session auth and CSRF-protected forms. */
export function createWebApp(deps: AppDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>({ strict: false });

  web.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'same-origin');
    // Pages show secrets (new keys) and account data: never store them in any cache.
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
    c.header('Server-Timing', `app;dur=${(performance.now() - started).toFixed(1)}`);
  });

  registerStaticRoutes(web);

  web.use('*', async (c, next) => {
    const session = await loadSession(c, deps);
    c.set('session', session);
    if (session) c.set('webCaller', await sessionCaller(deps.sql, session.user));
    await next();
  });

  // Signed-out visitors reach only the public pages (before the CSRF check: an expired session
  // should read as such, not as a forged form).
  web.use('*', async (c, next) => {
    if (c.get('session') || PUBLIC_PATHS.test(c.req.path)) return next();
    if (c.req.method === 'GET' || c.req.method === 'HEAD') {
      const target =
        c.req.path === '/app' || c.req.path === '/app/'
          ? '/app/sign-in'
          : `/app/sign-in?next=${encodeURIComponent(c.req.path + (new URL(c.req.url).search || ''))}`;
      return c.redirect(target, 303);
    }
    // Signing out without a session: already done. Any other form: nothing happens, say why.
    if (c.req.path.replace(/\/$/, '') === '/app/sign-out') return c.redirect('/app/sign-in?signed_out=1', 303);
    return errorPage(c, 401, 'AUTHENTICATION_REQUIRED', 'Your session has ended. Sign in again.');
  });

  // Every POST: bounded body, then the CSRF check, before any handler sees the form. Uploads are
  // the exception: their body streams into the upload use case, so their token comes in a header
  // (page script) or the form's action URL (plain form), and their limits are the API's.
  web.post('*', async (c, next) => {
    if (STREAMED_UPLOAD.test(c.req.path)) return next();
    const maxSize = TEXT_DOCUMENT_FORM.test(c.req.path) ? TEXT_FORM_LIMIT : FORM_LIMIT;
    return bodyLimit({ maxSize, onError: (cx) => errorPage(cx as WebContext, 413, 'PAYLOAD_TOO_LARGE', 'The form was too large.') })(
      c,
      next,
    );
  });
  web.post('*', async (c, next) => {
    const streamed = STREAMED_UPLOAD.test(c.req.path);
    const ct = mediaTypeEssence(c.req.header('content-type'));
    const form: FormFields =
      !streamed && (ct === 'application/x-www-form-urlencoded' || ct === 'multipart/form-data')
        ? ((await c.req.parseBody({ all: true })) as FormFields)
        : {};
    c.set('form', form);
    const session = c.get('session');
    const token = streamed ? (c.req.header('x-csrf-token') ?? c.req.query('_csrf') ?? '') : field(form, '_csrf');
    // Browsers label cross-site requests themselves; refuse those outright, then check the token.
    const crossSite = c.req.header('sec-fetch-site') === 'cross-site';
    // Signed-out forms (sign-in, invite) carry the pre-session token, also when a session exists in another tab.
    const valid =
      !crossSite &&
      ((session !== null && safeEqual(token, session.csrfToken)) ||
        (PUBLIC_PATHS.test(c.req.path) && presessionTokenValid(c, deps, token)));
    if (!valid) {
      const message = 'This form could not be verified (missing or stale security token). Reload the page and try again.';
      if (streamed && (c.req.header('accept') ?? '').includes('application/json')) {
        return c.json({ error: message, code: 'CSRF_FAILED' }, 403);
      }
      return errorPage(c, 403, 'CSRF_FAILED', message);
    }
    await next();
  });

  registerAuthPages(web, deps);
  registerOverviewPages(web, deps);
  registerCollectionForms(web, deps);
  registerCollectionPage(web, deps);
  registerUploadRoutes(web, deps);
  registerDocumentPages(web, deps);
  registerCataloguePage(web, deps);
  registerSearchPage(web, deps);
  registerKeyPages(web, deps);
  registerUsagePage(web, deps);
  registerAdminPages(web, deps);

  web.all('*', (c) => errorPage(c, 404, 'NOT_FOUND', `There is no page at ${c.req.path}.`));

  web.onError(async (err, c) => {
    if (err instanceof AppError && err.status < 500) {
      for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
      return errorPage(c, err.status, err.code, err.message);
    }
    const availability = deps.availability;
    if (await availability.explains(err)) {
      // An outage (logged once by the tracker), not a fault of this page.
      c.header('Retry-After', String(availability.retryAfterSeconds));
      return errorPage(c, 503, 'SERVICE_UNAVAILABLE', 'The database is unreachable at the moment. Reload the page in a few seconds.');
    }
    (c.get('logger') ?? deps.logger).error({ err, path: c.req.path }, 'web page failed');
    return errorPage(
      c,
      500,
      'INTERNAL_ERROR',
      `The page could not be shown. Quote request id ${c.get('requestId') ?? '—'} when reporting this.`,
    );
  });
  return web;
}
