import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide, rateLimitHeaders, TIER_LIMITS, windowEnd, windowStarts, type CounterRow } from './windows.js';

const now = new Date('2026-03-31T23:59:30.250Z');
const w = windowStarts(now);
const row = (m: number, d: number, mo: number, admitted: boolean): CounterRow => ({
  minute_start: w.minute,
  minute_count: m,
  day_start: w.day,
  day_count: d,
  month_start: w.month,
  month_count: mo,
  admitted,
});
const sec = (iso: string) => Date.parse(iso) / 1000;

describe('rate-limit windows', () => {
  it('fixed UTC windows', () => {
    assert.equal(w.minute.toISOString(), '2026-03-31T23:59:00.000Z');
    assert.equal(w.day.toISOString(), '2026-03-31T00:00:00.000Z');
    assert.equal(w.month.toISOString(), '2026-03-01T00:00:00.000Z');
    assert.equal(windowEnd('month', w.month).toISOString(), '2026-04-01T00:00:00.000Z');
    assert.equal(windowEnd('month', new Date('2026-12-01T00:00:00Z')).toISOString(), '2027-01-01T00:00:00.000Z');
  });

  it('admitted: reports the window with the fewest remaining, ties to the one that resets first', () => {
    const free = TIER_LIMITS.free;
    assert.deepEqual(decide(row(3, 3, 3, true), free, now), {
      allowed: true,
      window: 'minute',
      limit: 10,
      remaining: 7,
      reset: sec('2026-04-01T00:00:00Z'),
    });
    assert.deepEqual(decide(row(1, 995, 995, true), free, now), {
      allowed: true,
      window: 'day',
      limit: 1000,
      remaining: 5,
      reset: sec('2026-04-01T00:00:00Z'),
    });
    assert.deepEqual(decide(row(1, 2, 9_999, true), free, now), {
      allowed: true,
      window: 'month',
      limit: 10000,
      remaining: 1,
      reset: sec('2026-04-01T00:00:00Z'),
    });
    // Exactly at the limit after this request: remaining 0 but still admitted.
    assert.equal(decide(row(10, 10, 10, true), free, now).remaining, 0);
  });

  it('denied: Retry-After until the last full window ends', () => {
    const pro = TIER_LIMITS.pro;
    const m = decide(row(300, 500, 500, false), pro, now);
    assert.deepEqual(m, { allowed: false, window: 'minute', limit: 300, remaining: 0, reset: sec('2026-04-01T00:00:00Z'), retryAfter: 30 });
    const later = new Date('2026-03-15T10:00:00Z');
    const w2 = windowStarts(later);
    const both: CounterRow = {
      minute_start: w2.minute,
      minute_count: 300,
      day_start: w2.day,
      day_count: 100_000,
      month_start: w2.month,
      month_count: 100_001,
      admitted: false,
    };
    const dd = decide(both, pro, later);
    assert.equal(dd.window, 'day');
    assert.equal(dd.retryAfter, 14 * 3600);
    assert.deepEqual(rateLimitHeaders(dd), {
      'X-RateLimit-Limit': '100000',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(sec('2026-03-16T00:00:00Z')),
      'Retry-After': String(14 * 3600),
    });
  });
});
