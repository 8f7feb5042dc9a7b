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

  it('a body field named like an Object.prototype member: 400 naming it, on every JSON route', async () => {
    const coll = await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'proto-keys' } });
    assert.equal(coll.status, 201, coll.text);
    const routes: [string, string][] = [
      ['/api/v1/search/', '"query":"x"'],
      ['/api/v1/collections/', '"name":"n"'],
      ['/api/v1/keys/', '"name":"k"'],
      ['/api/v1/webhooks/', '"url":"https://example.com/h","events":["document.indexed"]'],
      [`/api/v1/collections/${coll.body.id}/documents/`, '"source_type":"text","content":"c"'],
    ];
    for (const name of ['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty']) {
      for (const [path, valid] of routes) {
        const r = await req('POST', path, {
          key: t.key,
          headers: { 'content-type': 'application/json' },
          body: `{${valid},"${name}":"x"}`,
        });
        assert.equal(r.status, 400, `${name} on ${path}: ${r.text}`);
        assert.equal(r.body.code, 'VALIDATION_FAILED', `${name} on ${path}`);
        assert.deepEqual(r.body.fields?.[name], ['Unknown field.'], `${name} on ${path}: ${r.text}`);
      }
    }
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
