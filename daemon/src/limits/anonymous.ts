import { AppError } from '../errors.js';
import { rateLimitHeaders } from './windows.js';

/** Distinct client addresses tracked per minute; past it, new addresses share one budget (memory stays bounded). */
const MAX_TRACKED_ADDRESSES = 50_000;
const OVERFLOW = '*';

/**
 * The per-address budget of requests that carry no valid key: 401 answers and the public schema.
 * The specification (docs/service-spec.md §8) puts X-RateLimit-* on every API response, and those requests have no user to
 * count against; the budget also slows key guessing. It is a fixed UTC minute per API process, held
 * in memory: nothing is written to the database for a request nobody is known to have made.
 */
export function anonymousLimiter(perMinute: number, now: () => Date) {
  let minute = -1;
  const counts = new Map<string, number>();
  return {
    /** Counts one request from `ip`: its X-RateLimit-* headers, or throws 429 RATE_LIMIT_EXCEEDED with Retry-After. */
    take(ip: string): Record<string, string> {
      const t = now().getTime();
      const start = t - (t % 60_000);
      if (start !== minute) {
        minute = start;
        counts.clear();
      }
      const key = counts.has(ip) || counts.size < MAX_TRACKED_ADDRESSES ? ip : OVERFLOW;
      const used = counts.get(key) ?? 0;
      const reset = Math.ceil((start + 60_000) / 1000);
      if (used >= perMinute) {
        const retryAfter = Math.max(1, reset - Math.floor(t / 1000));
        throw new AppError(
          'RATE_LIMIT_EXCEEDED',
          `Rate limit exceeded: ${perMinute} requests per minute from one address without a valid API key. Retry after ${retryAfter} s.`,
          undefined,
          rateLimitHeaders({ allowed: false, window: 'minute', limit: perMinute, remaining: 0, reset, retryAfter }),
        );
      }
      counts.set(key, used + 1);
      return rateLimitHeaders({ allowed: true, window: 'minute', limit: perMinute, remaining: perMinute - used - 1, reset });
    },
  };
}

export type AnonymousLimiter = ReturnType<typeof anonymousLimiter>;
