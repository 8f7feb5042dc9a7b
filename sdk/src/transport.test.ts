// The retry policy end to end over real HTTP: a small loopback server scripts each answer.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createClient } from './index.js';
import { ConnectionError, NotFoundError, RateLimitError, ApiError, TimeoutError } from './errors.js';

type Script = { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }[];
let server: Server;
let baseUrl: string;
let script: Script = [];
let seen: { method: string; url: string; auth: string | undefined }[] = [];

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization });
      const step = script.shift() ?? { status: 200, body: [] };
      setTimeout(() => {
        res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
        res.end(step.body === undefined ? '' : JSON.stringify(step.body));
      }, step.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const envelope = (code: string) => ({ error: `failed: ${code}`, code });
const fresh = (s: Script) => {
  script = s;
  seen = [];
};
const fast = { baseUrl: '', apiKey: 'svc_' + 'a'.repeat(40), maxRetries: 3 };

test('GET retries 503 and 429 (honouring Retry-After) then returns parsed data with the bearer key', async () => {
  fresh([
    { status: 503, body: envelope('SERVICE_UNAVAILABLE') },
    { status: 429, headers: { 'retry-after': '0' }, body: envelope('RATE_LIMIT_EXCEEDED') },
    { status: 200, body: [{ uuid: 'c1' }] },
  ]);
  const retries: number[] = [];
  const client = createClient({ ...fast, baseUrl, onRetry: (i) => retries.push(i.attempt) });
  const list = await client.collections.list();
  assert.deepEqual(list, [{ uuid: 'c1' }]);
  assert.equal(seen.length, 3);
  assert.deepEqual(retries, [1, 2]);
  assert.equal(seen[0]!.auth, fast.apiKey.replace(/^/, 'Bearer '));
  assert.equal(seen[0]!.url, '/api/v1/collections/');
});

test('a non-idempotent POST is not repeated after a 500, but is after a 429', async () => {
  fresh([{ status: 500, body: envelope('INTERNAL_ERROR') }]);
  const client = createClient({ ...fast, baseUrl });
  await assert.rejects(
    client.collections.create({ name: 'x' }),
    (e: unknown) => e instanceof ApiError && e.status === 500 && e.code === 'INTERNAL_ERROR',
  );
  assert.equal(seen.length, 1);
  fresh([
    { status: 429, headers: { 'retry-after': '0' }, body: envelope('RATE_LIMIT_EXCEEDED') },
    { status: 201, body: { uuid: 'new' } },
  ]);
  assert.deepEqual(await client.collections.create({ name: 'x' }), { uuid: 'new' });
  assert.equal(seen.length, 2);
});

test('a 503 with Retry-After (nothing was done) repeats even a create, after the announced delay; without it, not', async () => {
  fresh([
    { status: 503, headers: { 'retry-after': '1' }, body: envelope('SERVICE_UNAVAILABLE') },
    { status: 201, body: { uuid: 'made' } },
  ]);
  const delays: number[] = [];
  const client = createClient({ ...fast, baseUrl, onRetry: (i) => delays.push(i.delayMs) });
  assert.deepEqual(await client.collections.create({ name: 'x' }), { uuid: 'made' });
  assert.equal(seen.length, 2);
  assert.equal(delays.length, 1);
  assert.ok(delays[0]! >= 1000 && delays[0]! <= 1100, `waited the Retry-After (plus at most 10 %): ${delays[0]} ms`);

  // A write that lost its database connection midway may have been applied: the server leaves out Retry-After.
  fresh([{ status: 503, body: envelope('SERVICE_UNAVAILABLE') }]);
  await assert.rejects(
    client.collections.create({ name: 'x' }),
    (e: unknown) => e instanceof ApiError && e.status === 503 && e.code === 'SERVICE_UNAVAILABLE',
  );
  assert.equal(seen.length, 1);
});

test('an upload answered 500 UPLOAD_FAILED with Retry-After (storage down, nothing stored) is repeated; without it, not', async () => {
  const delays: number[] = [];
  const client = createClient({ ...fast, baseUrl, onRetry: (i) => delays.push(i.delayMs) });
  fresh([
    { status: 500, headers: { 'retry-after': '1' }, body: envelope('UPLOAD_FAILED') },
    { status: 201, body: { uuid: 'stored' } },
  ]);
  assert.deepEqual(await client.documents.upload('c0ffee00-0000-4000-8000-000000000000', new Blob(['x']), { filename: 'x.txt' }), {
    uuid: 'stored',
  });
  assert.equal(seen.length, 2);
  assert.ok(delays[0]! >= 1000 && delays[0]! <= 1100, `${delays[0]} ms`);
  fresh([{ status: 500, body: envelope('UPLOAD_FAILED') }]);
  await assert.rejects(
    client.documents.upload('c0ffee00-0000-4000-8000-000000000000', new Blob(['x']), { filename: 'x.txt' }),
    (e: unknown) => e instanceof ApiError && e.code === 'UPLOAD_FAILED' && e.retryAfter === undefined,
  );
  assert.equal(seen.length, 1);
});

test('Retry-After as an HTTP date is honoured on any status, through the one parser (ApiError.retryAfter)', async () => {
  const at = new Date(Date.now() + 2500).toUTCString();
  fresh([
    { status: 503, headers: { 'retry-after': at }, body: envelope('SERVICE_UNAVAILABLE') },
    { status: 201, body: { uuid: 'made' } },
  ]);
  const delays: number[] = [];
  const client = createClient({ ...fast, baseUrl, onRetry: (i) => delays.push(i.delayMs) });
  assert.deepEqual(await client.collections.create({ name: 'x' }), { uuid: 'made' });
  assert.ok(delays[0]! >= 1000, `waited for the date: ${delays[0]} ms`);
});

test('search is a POST but read-only, so it is retried after a 502', async () => {
  fresh([
    { status: 502, body: 'bad gateway' },
    { status: 200, body: { query: 'q', count: 0, results: [] } },
  ]);
  const r = await createClient({ ...fast, baseUrl }).search('q');
  assert.equal(r.count, 0);
  assert.equal(seen.length, 2);
});

test('gives up after maxRetries, and a Retry-After beyond the cap is not waited out', async () => {
  fresh(Array.from({ length: 5 }, () => ({ status: 503, body: envelope('SERVICE_UNAVAILABLE') })));
  await assert.rejects(
    createClient({ ...fast, baseUrl, maxRetries: 1 }).keys.list(),
    (e: unknown) => e instanceof ApiError && e.status === 503,
  );
  assert.equal(seen.length, 2);
  fresh([{ status: 429, headers: { 'retry-after': '3600' }, body: envelope('RATE_LIMIT_EXCEEDED') }]);
  await assert.rejects(
    createClient({ ...fast, baseUrl }).keys.list(),
    (e: unknown) => e instanceof RateLimitError && e.retryAfter === 3600 && e.code === 'RATE_LIMIT_EXCEEDED',
  );
  assert.equal(seen.length, 1);
});

test('4xx errors are typed and never retried', async () => {
  fresh([{ status: 404, headers: { 'x-request-id': 'r-42' }, body: envelope('COLLECTION_NOT_FOUND') }]);
  await assert.rejects(
    createClient({ ...fast, baseUrl }).collections.get('nope'),
    (e: unknown) => e instanceof NotFoundError && e.code === 'COLLECTION_NOT_FOUND' && e.requestId === 'r-42',
  );
  assert.equal(seen.length, 1);
});

test('timeouts become TimeoutError; idempotent calls retry them', async () => {
  fresh([
    { status: 200, body: [], delayMs: 400 },
    { status: 200, body: [{ uuid: 'late' }] },
  ]);
  assert.deepEqual(await createClient({ ...fast, baseUrl, timeoutMs: 150 }).collections.list(), [{ uuid: 'late' }]);
  fresh([{ status: 201, body: {}, delayMs: 400 }]);
  await assert.rejects(createClient({ ...fast, baseUrl, timeoutMs: 150 }).collections.create({ name: 'slow' }), TimeoutError);
});

test('a refused connection is retried even for a POST, then reported as ConnectionError', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const retries: string[] = [];
  const client = createClient({ ...fast, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, onRetry: (i) => retries.push(i.method) });
  await assert.rejects(
    client.collections.create({ name: 'x' }),
    (e: unknown) => e instanceof ConnectionError && e.beforeSend && /ECONNREFUSED/.test(e.message),
  );
  assert.deepEqual(retries, ['POST', 'POST']);
});

test('connection failures say where, which code and what it means, never only "fetch failed"', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await createClient({ ...fast, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 })
    .search('x')
    .catch((e: unknown) => e);
  assert.ok(refused instanceof ConnectionError);
  assert.equal(refused.code, 'ECONNREFUSED');
  assert.equal(
    String(refused),
    `ConnectionError: Could not connect to http://127.0.0.1:${port}: ECONNREFUSED (connection refused: nothing listens there; is the server running?)`,
  );
  // A server that closes the socket mid-request (it died): said in words, not as UND_ERR_SOCKET alone.
  const dying = createServer((req) => req.socket.destroy());
  await new Promise<void>((r) => dying.listen(0, '127.0.0.1', r));
  const lost = await createClient({ ...fast, baseUrl: `http://127.0.0.1:${(dying.address() as AddressInfo).port}`, maxRetries: 0 })
    .collections.create({ name: 'x' })
    .catch((e: unknown) => e);
  await new Promise<void>((r) => dying.close(() => r()));
  assert.ok(lost instanceof ConnectionError && !lost.beforeSend);
  assert.match(lost.message, /^Lost the connection to http:\/\/127\.0\.0\.1:\d+: \w+ \(the server closed the connection/);
  // A port fetch refuses to use: the innermost reason rather than "fetch failed".
  const bad = await createClient({ ...fast, baseUrl: 'http://127.0.0.1:1', maxRetries: 0 })
    .search('x')
    .catch((e: unknown) => e);
  assert.ok(bad instanceof ConnectionError);
  assert.equal(bad.message, 'Could not reach http://127.0.0.1:1: bad port');
});

test('a base URL with /api/v1 or a trailing slash is normalised', async () => {
  fresh([{ status: 200, body: [] }]);
  await createClient({ ...fast, baseUrl: `${baseUrl}/api/v1/` }).keys.list();
  assert.equal(seen[0]!.url, '/api/v1/keys/');
});
