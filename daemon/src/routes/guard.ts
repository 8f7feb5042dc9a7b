import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../errors.js';
import { anonymousLimiter, type AnonymousLimiter } from '../limits/anonymous.js';
import type { KeyCount } from '../limits/limiter.js';
import { clientIp } from '../net/client-ip.js';
import { decide, deniedHeaders, rateLimitHeaders, TIER_LIMITS } from '../limits/windows.js';
import type { AppDeps, AppEnv, Caller } from '../types.js';
import { bearerKeyHash, findKeyByHash, type KeyRow } from '../auth/keys.js';

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * The guard of /api/v1/* and /mcp: Bearer authentication, then the per-user rate limit.
 *
 * The key is parsed and hashed once. With rate limits on, a user with room left is served from a
 * block of permits the daemon reserved for it (limits/permit-leases.ts): the request costs only
 * the key lookup. Otherwise a single statement both looks the key up and counts the request
 * (limits/limiter.ts `countForKey`). Key errors win over the limit, and keys that do not
 * authenticate count nothing.
 *
 * Allowed requests get the X-RateLimit-* headers on whatever response the handler produces,
 * errors and raw responses (/mcp) included, so they are set after the handler; denied ones answer
 * 429 RATE_LIMIT_EXCEEDED here with Retry-After. Requests that do not authenticate are counted
 * against the client address's anonymous budget instead (limits/anonymous.ts), so a 401 carries
 * the headers too.
 */
export function apiGuard(deps: AppDeps, anonymous = anonymousBudget(deps)): MiddlewareHandler<AppEnv> {
  if (!deps.config.RATE_LIMITS_ENABLED || !anonymous) {
    return async (c, next) => {
      c.set('caller', await authenticateKey(deps, c.req.header('authorization')));
      await next();
    };
  }
  return async (c, next) => {
    const now = deps.clock.now();
    let caller: Caller;
    let found: KeyCount | undefined;
    try {
      found = await deps.leases.count(bearerKeyHash(c.req.header('authorization')), now);
      caller = callerOf(deps, found?.key, now);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 401) throw err;
      const headers = anonymous.take(clientIp(c, deps.config.TRUST_PROXY));
      throw new AppError(err.code, err.message, err.fields, { ...err.headers, ...headers });
    }
    c.set('caller', caller);
    // Counted whenever the key authenticates: the statement's test is the one callerOf applies (a
    // Date truncates PostgreSQL's microseconds, so callerOf never accepts a key the statement refused).
    if (!found?.counter) throw new Error('rate limit: an authenticated key was not counted');
    const decision = decide(found.counter, TIER_LIMITS[caller.tier], now);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit exceeded: ${decision.limit} requests per ${decision.window} on the ${caller.tier} tier (shared by all keys of this user). Retry after ${decision.retryAfter} s.`,
        undefined,
        { ...headers, ...deniedHeaders(caller) },
      );
    }
    await next();
    setOnResponse(c.res, headers, (k, v) => c.header(k, v));
  };
}

/** The per-address budget of unauthenticated requests; undefined when rate limits are off. */
export function anonymousBudget(deps: AppDeps): AnonymousLimiter | undefined {
  if (!deps.config.RATE_LIMITS_ENABLED) return undefined;
  return anonymousLimiter(deps.config.ANONYMOUS_RATE_LIMIT_PER_MINUTE, () => deps.clock.now());
}

/** Public API routes (the schema and its docs): no key needed, but counted against the address's anonymous budget. */
export function publicApiGuard(deps: AppDeps, anonymous: AnonymousLimiter | undefined): MiddlewareHandler<AppEnv> {
  return async (c: Context<AppEnv>, next) => {
    if (!anonymous) return next();
    const headers = anonymous.take(clientIp(c, deps.config.TRUST_PROXY));
    await next();
    setOnResponse(c.res, headers, (k, v) => c.header(k, v));
  };
}

/** Resolves a Bearer API key into a Caller, without counting it (daemons without rate limits, benchmarks). */
export async function authenticateKey(deps: AppDeps, header: string | undefined): Promise<Caller> {
  const hash = bearerKeyHash(header);
  return callerOf(deps, await findKeyByHash(deps.sql, hash), deps.clock.now());
}

/** The Caller of a looked-up key, or the error its state calls for. */
function callerOf(deps: AppDeps, row: KeyRow | undefined, now: Date): Caller {
  // A revoked or rotated key is indistinguishable from an unknown one to the caller.
  if (!row?.key_active) throw new AppError('INVALID_API_KEY', 'Invalid API key.');
  if (!row.user_active) throw new AppError('USER_ACCOUNT_DISABLED', 'The account that owns this API key is disabled.');
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) {
    throw new AppError('API_KEY_EXPIRED', `API key expired at ${row.expires_at.toISOString()}. Set a new expiry to renew it.`);
  }
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
    // Best effort and off the response path: a lost update only delays "last used" by a minute.
    deps.sql`update api_keys set last_used_at = ${now} where id = ${row.key_id}`.catch(() => {});
  }
  return {
    keyId: row.key_id,
    keyPrefix: row.prefix,
    userId: row.user_id,
    orgId: row.organization_id,
    isFullAccess: row.is_full_access,
    isAdmin: row.is_admin,
    tier: row.rate_tier,
    via: 'key',
  };
}

/**
 * Adds headers to a finished response in place. c.header() would wrap the response in a new one
 * per header, turning node-server's fast string body into a stream (measured: most of the
 * limiter's CPU cost); only immutable headers fall back to it. A header the response already has
 * is kept: a refusal by another limit (the plan quota's 429) describes that limit.
 */
export function setOnResponse(res: Response, headers: Record<string, string>, fallback: (k: string, v: string) => void): void {
  const missing = Object.entries(headers).filter(([k]) => !res.headers.has(k));
  try {
    for (const [k, v] of missing) res.headers.set(k, v);
  } catch {
    for (const [k, v] of missing) fallback(k, v);
  }
}
