import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, ConnectionError, RateLimitError, TimeoutError, errorFromResponse, parseRetryAfter } from './errors.js';
import { connectionErrorFrom, DEFAULT_RETRY, retryDelayMs, shouldRetry } from './retry.js';

const apiError = (status: number, headers: Record<string, string> = {}) =>
  errorFromResponse(new Response(JSON.stringify({ error: 'x', code: 'X' }), { status, headers }), { error: 'x', code: 'X' });

test('idempotent calls retry on 429, 5xx, timeouts and connection errors; never on other 4xx', () => {
  for (const s of [429, 500, 502, 503, 504]) assert.equal(shouldRetry(apiError(s), true), true, String(s));
  for (const s of [400, 401, 403, 404, 409, 413]) assert.equal(shouldRetry(apiError(s), true), false, String(s));
  assert.equal(shouldRetry(new TimeoutError('t'), true), true);
  assert.equal(shouldRetry(new ConnectionError('c'), true), true);
});

test('non-idempotent calls retry only where the server certainly did nothing', () => {
  assert.equal(shouldRetry(apiError(429), false), true);
  assert.equal(shouldRetry(apiError(503, { 'retry-after': '2' }), false), true);
  assert.equal(shouldRetry(apiError(503), false), false);
  assert.equal(shouldRetry(apiError(500), false), false);
  assert.equal(shouldRetry(apiError(502), false), false);
  assert.equal(shouldRetry(new TimeoutError('t'), false), false);
  assert.equal(shouldRetry(new ConnectionError('reset'), false), false);
  assert.equal(shouldRetry(new ConnectionError('refused', { beforeSend: true }), false), true);
});

test('connection errors are "before send" only for refusal and name resolution failures', () => {
  const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
  assert.equal(connectionErrorFrom(refused, 'http://127.0.0.1:1').beforeSend, true);
  // Happy eyeballs: an AggregateError holding one refusal per address family.
  const both = new TypeError('fetch failed', {
    cause: Object.assign(
      new AggregateError([
        Object.assign(new Error('a'), { code: 'ECONNREFUSED' }),
        Object.assign(new Error('b'), { code: 'ECONNREFUSED' }),
      ]),
      { code: 'ECONNREFUSED' },
    ),
  });
  assert.equal(connectionErrorFrom(both, 'http://localhost:1').beforeSend, true);
  const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
  assert.equal(connectionErrorFrom(reset, 'http://127.0.0.1:1').beforeSend, false);
  assert.equal(connectionErrorFrom(new TypeError('Failed to fetch'), 'http://x.test').beforeSend, false);
});

test('backoff doubles with jitter, is capped, and Retry-After wins', () => {
  const cfg = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(
    retryDelayMs(0, cfg, undefined, () => 0),
    50,
  );
  assert.equal(
    retryDelayMs(0, cfg, undefined, () => 1),
    100,
  );
  assert.equal(
    retryDelayMs(3, cfg, undefined, () => 1),
    800,
  );
  assert.equal(
    retryDelayMs(10, cfg, undefined, () => 1),
    1000,
  );
  assert.equal(
    retryDelayMs(0, cfg, 3, () => 0),
    3000,
  );
  assert.equal(
    retryDelayMs(0, cfg, 3, () => 1),
    3300,
  );
});

test('Retry-After parses seconds and HTTP dates', () => {
  assert.equal(parseRetryAfter('12'), 12);
  assert.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1)), 30);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(null), undefined);
});

test('error classes follow the status; the envelope fills code, message, fields and request id', () => {
  const res = new Response('', { status: 400, headers: { 'x-request-id': 'req-1' } });
  const e = errorFromResponse(res, { error: 'Bad', code: 'VALIDATION_FAILED', fields: { name: ['Required'] } });
  assert.equal(e.constructor.name, 'ValidationError');
  assert.deepEqual(
    [e.status, e.code, e.message, e.fields, e.requestId],
    [400, 'VALIDATION_FAILED', 'Bad', { name: ['Required'] }, 'req-1'],
  );
  const names = [401, 403, 404, 429, 500].map((s) => apiError(s).constructor.name);
  assert.deepEqual(names, ['AuthenticationError', 'PermissionError', 'NotFoundError', 'RateLimitError', 'ApiError']);
  const limited = apiError(429, { 'retry-after': '7' });
  assert.ok(limited instanceof RateLimitError && limited.retryAfter === 7, 'RateLimitError with retryAfter 7');
  const proxy = errorFromResponse(new Response('', { status: 502, statusText: 'Bad Gateway' }), '<html>bad gateway</html>');
  assert.ok(proxy instanceof ApiError, 'ApiError');
  assert.equal(proxy.code, 'INTERNAL_ERROR');
  assert.match(proxy.message, /bad gateway/);
});
