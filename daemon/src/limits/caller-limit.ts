import { AppError } from '../errors.js';
import type { AppDeps, Caller } from '../types.js';
import { countForUser } from './limiter.js';
import { decide, deniedHeaders, rateLimitHeaders, TIER_LIMITS } from './windows.js';

/**
 * Counts one request of an already identified caller against the user's rate limit, as the API
 * guard does for keys: for session traffic that does the API's work (web UI searches, uploads,
 * session downloads). Returns the X-RateLimit-* headers; throws 429 RATE_LIMIT_EXCEEDED.
 */
export async function limitCaller(deps: AppDeps, caller: Caller): Promise<Record<string, string>> {
  if (!deps.config.RATE_LIMITS_ENABLED) return {};
  const now = deps.clock.now();
  const limits = TIER_LIMITS[caller.tier];
  const decision = decide(await countForUser(deps.sql, caller.userId, limits, now), limits, now);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `Rate limit exceeded: ${decision.limit} requests per ${decision.window} on the ${caller.tier} tier (shared by all keys of this user and the web UI). Retry after ${decision.retryAfter} s.`,
      undefined,
      { ...headers, ...deniedHeaders(caller) },
    );
  }
  return headers;
}
