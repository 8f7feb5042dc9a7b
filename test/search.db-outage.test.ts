// A database outage as search clients see it: POST /search/ answers 500 (the specification's status) with its
// code for an unavailable search backend (SEARCH_UNAVAILABLE) and Retry-After, other endpoints 503
// SERVICE_UNAVAILABLE; every such answer carries the X-RateLimit-* headers (the specification puts
// them on every API response), as do the 404s outside /api/v1. The database sits behind a TCP proxy
// that drops every connection and refuses new ones.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { startPgProxy, type PgProxy } from './helpers/pg-proxy.js';

function assertRateLimitHeaders(r: { status: number; headers: Headers }, what: string): void {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    assert.match(r.headers.get(h) ?? '', /^\d+$/, `${what} (${r.status}) carries ${h}`);
}

describe('search during a database outage', () => {
  let db: TestDatabase;
  let proxy: PgProxy;
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  before(async () => {
    db = await createTestDatabase('search_outage');
    const u = new URL(db.url);
    proxy = await startPgProxy({ host: u.hostname, port: Number(u.port) });
    u.port = String(proxy.port);
    d = await startTestDaemon({ db, env: { DATABASE_URL: u.toString(), RATE_LIMITS_ENABLED: 'true', DB_CONNECT_TIMEOUT_MS: '1000' } });
    t = await createTenant(d, 'outage');
    req = http(d.url);
  });
  after(async () => {
    proxy?.refuse(false);
    await d?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('404s of /api/ and of unversioned paths carry the rate-limit headers', async () => {
    for (const p of ['/api/', '/api/search/', '/api/collections/']) {
      const r = await req('GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.body.code, 'NOT_FOUND', p);
      assertRateLimitHeaders(r, `GET ${p}`);
    }
  });

  it('POST /search/ answers 500 SEARCH_UNAVAILABLE with Retry-After; other calls 503 SERVICE_UNAVAILABLE; both with rate-limit headers', async () => {
    assert.equal((await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'before' } })).status, 200);
    proxy.down();
    try {
      // The first search meets the lost connections; the next ones are answered at once from the known outage.
      for (let i = 0; i < 3; i++) {
        const s = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'during the outage' } });
        assert.equal(s.status, 500, s.text);
        assert.equal(s.body.code, 'SEARCH_UNAVAILABLE', `search ${i}`);
        assert.match(s.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `search ${i} Retry-After`);
        assertRateLimitHeaders(s, `search ${i}`);
      }
      const list = await req('GET', '/api/v1/collections/', { key: t.key });
      assert.equal(list.status, 503);
      assert.equal(list.body.code, 'SERVICE_UNAVAILABLE');
      assertRateLimitHeaders(list, 'GET /api/v1/collections/');
    } finally {
      proxy.refuse(false);
    }
    for (let i = 0; ; i++) {
      const s = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'after' } });
      if (s.status === 200) break;
      assert.ok(i < 100, `search did not come back: ${s.status} ${s.text}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
