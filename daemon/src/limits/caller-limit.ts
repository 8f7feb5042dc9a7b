import { AppError } from '../errors.js';
import type { AppDeps, Caller } from '../types.js';
import type { Sql } from '../db/client.js';
import { type CounterRow, decide, deniedHeaders, rateLimitHeaders, TIER_LIMITS, type TierLimits, windowStarts } from './windows.js';

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
      { ...headers, ...deniedHeaders(caller) },
    );
  }
  return headers;
}

/** Counts one request of a known user against limits, in one statement. */
async function consume(sql: Sql, userId: string, limits: TierLimits, now: Date): Promise<CounterRow> {
  const w = windowStarts(now);
  const rows = await sql<CounterRow[]>`
    insert into rate_limit_counters as c
      (user_id, minute_start, minute_count, day_start, day_count, month_start, month_count, admitted)
    values (${userId}, ${w.minute}, 1, ${w.day}, 1, ${w.month}, 1, true)
    on conflict (user_id) do update set
      (minute_start, minute_count, day_start, day_count, month_start, month_count, admitted) = (
        select greatest(c.minute_start, excluded.minute_start), cur.m + cur.ok,
               greatest(c.day_start, excluded.day_start), cur.d + cur.ok,
               greatest(c.month_start, excluded.month_start), cur.mo + cur.ok,
               cur.ok = 1
          from (select n.m, n.d, n.mo, (n.m < ${limits.minute}::int and n.d < ${limits.day}::int and n.mo < ${limits.month}::int)::int as ok
                  from (select case when c.minute_start >= excluded.minute_start then c.minute_count else 0 end as m,
                               case when c.day_start >= excluded.day_start then c.day_count else 0 end as d,
                               case when c.month_start >= excluded.month_start then c.month_count else 0 end as mo) n) cur)
    returning minute_start, minute_count, day_start, day_count, month_start, month_count, admitted`;
  return rows[0]!;
}
