import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, ConnectionError, RateLimitError } from '@docsift/sdk';
import { formatRetryWait, retryWait, sameWait } from './retry-notice.js';

const apiError = (status: number, code: string, message: string) =>
  new (status === 429 ? RateLimitError : ApiError)({ status, code, message, headers: new Headers() } as never);

describe('retry notices', () => {
  it('a rate limit names the limit and the time left, rounded up', () => {
    const err = apiError(
      429,
      'RATE_LIMIT_EXCEEDED',
      'Rate limit exceeded: 10 requests per minute on the free tier (shared by all keys of this user). Retry after 57 s.',
    );
    const w = retryWait(err, 56_100, 1_000);
    assert.equal(formatRetryWait(w, 1_000), 'rate limited — resuming in 57 s (10 requests per minute on the free tier)');
    assert.equal(formatRetryWait(w, 60_000), 'rate limited — resuming in 0 s (10 requests per minute on the free tier)');
  });

  it('a used-up search quota and transport failures say what they are', () => {
    const quota = apiError(
      429,
      'RATE_LIMIT_EXCEEDED',
      'Plan quota used up: the Free plan includes 1,000 searches per billing cycle and has no overage.',
    );
    assert.equal(
      formatRetryWait(retryWait(quota, 5_000, 0), 0),
      'search quota used up — resuming in 5 s (Free plan, 1,000 searches per cycle)',
    );
    assert.equal(formatRetryWait(retryWait(new ConnectionError('refused'), 2_000, 0), 0), 'connection failed — resuming in 2 s');
    assert.equal(
      formatRetryWait(retryWait(apiError(503, 'SERVICE_UNAVAILABLE', 'The database is unreachable; retry shortly.'), 1_000, 0), 0),
      'server unavailable — resuming in 1 s (the database is unreachable)',
    );
    assert.equal(formatRetryWait(retryWait(apiError(503, 'SERVICE_UNAVAILABLE', ''), 1_000, 0), 0), 'server unavailable — resuming in 1 s');
  });

  it('requests that hit the same limit together describe one wait', () => {
    const err = apiError(429, 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded: 10 requests per minute on the free tier. Retry after 6 s.');
    assert.ok(sameWait(retryWait(err, 6_200, 0), retryWait(err, 6_500, 10)));
    assert.ok(!sameWait(retryWait(err, 6_200, 0), retryWait(err, 6_200, 60_000)));
    assert.ok(!sameWait(undefined, retryWait(err, 1, 0)));
  });

  it('a 500 UPLOAD_FAILED that announces Retry-After is waited out as a storage outage, and reported with its wait', async () => {
    const err = new ApiError({
      status: 500,
      code: 'UPLOAD_FAILED',
      message: 'The file could not be written to storage.',
      headers: new Headers({ 'retry-after': '5' }),
    });
    assert.equal(err.retryAfter, 5);
    assert.equal(formatRetryWait(retryWait(err, 5_000, 0), 0), 'server could not store the upload — resuming in 5 s');
    const { describeError } = await import('./errors.js');
    const r = describeError(err);
    assert.equal(r.retry_after, 5);
    assert.match(r.hint ?? '', /nothing was stored\. Try again in 5 s/);
  });
});
