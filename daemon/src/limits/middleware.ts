import type { MiddlewareHandler } from 'hono';
import { hashApiKey, looksLikeApiKey } from '../auth/keys.js';
import { authenticateKey, bearerAuth } from '../auth/middleware.js';
import { AppError } from '../errors.js';
import type { AppDeps, AppEnv, Caller } from '../types.js';
import { consume, consumeForKey } from './limiter.js';
import { decide, rateLimitHeaders, TIER_LIMITS } from './windows.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The guard of /api/v1/* and /mcp: Bearer authentication, then the per-user rate limit.
 *
 * The limiter's single statement finds the user by the key's hash itself, so it runs at the same
 * time as the auth lookup instead of after it: rate limiting costs a second concurrent query, not
 * a second round trip. The auth lookup stays authoritative (its errors win); keys it would reject
 * are not counted by the limiter either.
 *
 * Allowed requests get the X-RateLimit-* headers on whatever response the handler produces,
 * errors and raw responses (/mcp) included, so they are set after the handler; denied ones answer
 * 429 RATE_LIMIT_EXCEEDED here with Retry-After.
 */
export function authAndLimit(deps: AppDeps): MiddlewareHandler<AppEnv> {
  if (!deps.config.RATE_LIMITS_ENABLED) return bearerAuth(deps);
  return async (c, next) => {
    const header = c.req.header('authorization');
    const now = deps.clock.now();
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    const counting = token && looksLikeApiKey(token) ? consumeForKey(deps.sql, hashApiKey(token), now) : Promise.resolve(undefined);
    const [caller, counted] = await Promise.all([authenticateKey(deps, header), counting]);
    c.set('caller', caller);
    const limits = TIER_LIMITS[caller.tier];
    // No row only if the key changed state between the two lookups: count it by user instead.
    const decision = decide(counted ?? (await consume(deps.sql, caller.userId, limits, now)), limits, now);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit exceeded: ${decision.limit} requests per ${decision.window} on the ${caller.tier} tier (shared by all keys of this user). Retry after ${decision.retryAfter} s.`,
        undefined,
        headers,
      );
    }
    await next();
    setOnResponse(c.res, headers, (k, v) => c.header(k, v));
  };
}

/**
 * Adds headers to a finished response in place. c.header() would wrap the response in a new one
 * per header, turning node-server's fast string body into a stream (measured: most of the
 * limiter's CPU cost); only immutable headers fall back to it.
 */
function setOnResponse(res: Response, headers: Record<string, string>, fallback: (k: string, v: string) => void): void {
  try {
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
  } catch {
    for (const [k, v] of Object.entries(headers)) fallback(k, v);
  }
}

/**
 * Counts one request of an already identified caller against the user's rate limit, as the API
 * guard does for keys: for session traffic that does the API's work (web UI searches, uploads,
 * session downloads). Returns the X-RateLimit-* headers; throws 429 RATE_LIMIT_EXCEEDED.
 */
export async function limitCaller(deps: AppDeps, caller: Caller): Promise<Record<string, string>> {
  if (!deps.config.RATE_LIMITS_ENABLED) return {};
  const now = deps.clock.now();
  const limits = TIER_LIMITS[caller.tier];
  const decision = decide(await consume(deps.sql, caller.userId, limits, now), limits, now);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `Rate limit exceeded: ${decision.limit} requests per ${decision.window} on the ${caller.tier} tier (shared by all keys of this user and the web UI). Retry after ${decision.retryAfter} s.`,
      undefined,
      headers,
    );
  }
  return headers;
}
