import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRetryAfter } from './retry-after.js';

test('parseRetryAfter reads delta-seconds or an HTTP date, in ms; null when absent or unreadable', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter(' 3 ', now), 3000);
  assert.equal(parseRetryAfter('1.5', now), 1500);
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter(['7', '9'], now), 7000);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter(undefined, now), null);
  assert.equal(parseRetryAfter(null, now), null);
  assert.equal(parseRetryAfter('', now), null);
  assert.equal(parseRetryAfter('soon', now), null);
});
