// A key's rate tier (docs/service-spec.md §8, "Rate tiers") is defined in rate-tier.ts.
import type { RateTier } from '../rate-tier.js';

export type WindowName = 'minute' | 'day' | 'month';
export type TierLimits = Record<WindowName, number>;

/** Requests per window by the calling key's tier (docs/service-spec.md §8, "Rate tiers"). */
export const TIER_LIMITS: Record<RateTier, TierLimits> = {
  free: { minute: 10, day: 1_000, month: 10_000 },
  basic: { minute: 60, day: 10_000, month: 100_000 },
  pro: { minute: 300, day: 100_000, month: 1_000_000 },
};

const WINDOWS: WindowName[] = ['minute', 'day', 'month'];

/** Fixed windows in UTC: the current minute, day and calendar month. */
export function windowStarts(now: Date): Record<WindowName, Date> {
  const t = now.getTime();
  return {
    minute: new Date(t - (t % 60_000)),
    day: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())),
    month: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
  };
}

export function windowEnd(name: WindowName, start: Date): Date {
  if (name === 'minute') return new Date(start.getTime() + 60_000);
  if (name === 'day') return new Date(start.getTime() + 86_400_000);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** The counter row as the limiter's upsert returns it (windows already rolled forward). */
export interface CounterRow {
  minute_start: Date;
  minute_count: number;
  day_start: Date;
  day_count: number;
  month_start: Date;
  month_count: number;
  admitted: boolean;
}

export interface LimitDecision {
  allowed: boolean;
  /** The window the X-RateLimit headers describe. */
  window: WindowName;
  limit: number;
  remaining: number;
  /** Unix seconds when that window ends and its counter starts again from zero. */
  reset: number;
  /** Only when denied: whole seconds until every full window has ended (at least 1). */
  retryAfter?: number;
}

/**
 * Which window the headers report. Allowed: the one with the fewest requests remaining (ties go
 * to the window that resets first). Denied: the full window that frees a slot last, so
 * Retry-After is the wait after which the request will pass.
 */
export function decide(row: CounterRow, limits: TierLimits, now: Date): LimitDecision {
  const state = WINDOWS.map((name) => {
    const count = row[`${name}_count`];
    const end = windowEnd(name, row[`${name}_start`]);
    return { name, limit: limits[name], count, remaining: Math.max(0, limits[name] - count), end };
  });
  if (row.admitted) {
    let best = state[0]!;
    for (const s of state.slice(1)) if (s.remaining < best.remaining) best = s;
    return { allowed: true, window: best.name, limit: best.limit, remaining: best.remaining, reset: Math.ceil(best.end.getTime() / 1000) };
  }
  const full = state.filter((s) => s.count >= s.limit);
  // A denial always has a full window; the fallback only guards against a limit lowered mid-window.
  let blocking = full[0] ?? state[0]!;
  for (const s of full.slice(1)) if (s.end > blocking.end) blocking = s;
  const retryAfter = Math.max(1, Math.ceil((blocking.end.getTime() - now.getTime()) / 1000));
  return {
    allowed: false,
    window: blocking.name,
    limit: blocking.limit,
    remaining: 0,
    reset: Math.ceil(blocking.end.getTime() / 1000),
    retryAfter,
  };
}

/**
 * What a 429 from the rate limiter adds to the X-RateLimit headers: the tier whose limit was hit,
 * and, when the caller administers this server, `X-RateLimit-Admin: true` (it can raise the tier
 * itself with `admin set-tier`; the CLI then names that command instead of "ask an administrator").
 */
export function deniedHeaders(caller: { tier: string; isAdmin: boolean }): Record<string, string> {
  return { 'X-RateLimit-Tier': caller.tier, ...(caller.isAdmin ? { 'X-RateLimit-Admin': 'true' } : {}) };
}

export function rateLimitHeaders(d: LimitDecision): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.reset),
  };
  if (d.retryAfter !== undefined) h['Retry-After'] = String(d.retryAfter);
  return h;
}
