import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors.js';
import { clientIp } from '../net/client-ip.js';
import { setOnResponse } from './guard.js';
import type { AnonymousLimiter } from '../limits/anonymous.js';
import type { AppDeps, AppEnv } from '../types.js';

/** API paths: the versioned API, the unversioned /api/… paths the specification's older descriptions use, and /mcp. */
const API_PATH = /^\/(api|mcp)(\/|$)/;

/**
 * The specification puts X-RateLimit-* on every API response. The guards add them to what they
 * let through; a few answers never reach a guard: 503s while the database is known to be down (no
 * key can be looked up), failures of the guard itself, and 404s outside /api/v1 (GET /api/,
 * unversioned paths). Those count against the client address's anonymous budget, like a 401, and
 * report it. Such an answer is never turned into a 429: past the budget it reports 0 remaining.
 * Requests whose caller is known (a session) are left alone.
 */
export function rateLimitHeadersOnUnguardedAnswers(deps: AppDeps, anonymous: AnonymousLimiter | undefined): MiddlewareHandler<AppEnv> {
  if (!anonymous) return (_c, next) => next();
  return async (c, next) => {
    await next();
    if (!API_PATH.test(c.req.path) || c.res.headers.has('X-RateLimit-Limit') || c.get('caller')) return;
    let headers: Record<string, string>;
    try {
      headers = anonymous.take(clientIp(c, deps.config.TRUST_PROXY));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const { 'Retry-After': _retry, ...rest } = err.headers ?? {};
      headers = rest;
    }
    setOnResponse(c.res, headers, (k, v) => c.header(k, v));
  };
}
