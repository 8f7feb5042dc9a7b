import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('error envelope and request ids', () => {
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  before(async () => {
    d = await startTestDaemon({ label: 'envelope' });
    t = await createTenant(d);
    req = http(d.url);
  });
  after(async () => d?.close());

  it('unknown route outside the API: 404 envelope', async () => {
    const r = await req('GET', '/definitely/not/here');
    assert.equal(r.status, 404);
    assert.deepEqual(Object.keys(r.body).sort(), ['code', 'error']);
    assert.equal(r.body.code, 'NOT_FOUND');
  });

  it('unknown API route with a valid key: 404 envelope', async () => {
    const r = await req('GET', '/api/v1/nope/', { key: t.key });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'NOT_FOUND');
  });

  it('echoes a safe X-Request-Id and replaces an unsafe one', async () => {
    const a = await req('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(a.headers.get('x-request-id'), 'abc-123');
    const b = await req('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(b.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const c = await req('GET', '/nope');
    assert.ok(c.headers.get('x-request-id'));
  });

  it('health and readiness', async () => {
    assert.equal((await req('GET', '/healthz')).status, 200);
    const r = await req('GET', '/readyz');
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'ready');
  });

  it('interactive docs are 404 outside development', async () => {
    for (const p of ['/api/v1/docs/', '/api/v1/redoc/']) {
      const r = await req('GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.body.code, 'NOT_FOUND');
    }
  });
});

describe('interactive docs in development', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ label: 'devdocs', env: { NODE_ENV: 'development' } });
  });
  after(async () => d?.close());
  it('serves Swagger UI (with local assets); the Redoc address leads there', async () => {
    const req = http(d.url);
    const docs = await req('GET', '/api/v1/docs/');
    assert.equal(docs.status, 200);
    assert.match(docs.text, /SwaggerUIBundle/);
    const asset = await req('GET', '/api/v1/docs/assets/swagger-ui-bundle.js');
    assert.equal(asset.status, 200);
    assert.ok(asset.text.length > 100_000);
    const redoc = await req('GET', '/api/v1/redoc/');
    assert.equal(redoc.status, 301);
    assert.equal(redoc.headers.get('location'), '/api/v1/docs/');
  });
});
