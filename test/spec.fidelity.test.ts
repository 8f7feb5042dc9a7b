// Rules of docs/service-spec.md that an audit found the daemon answering differently, one test each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('specification fidelity', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  before(async () => {
    d = await startTestDaemon({ label: 'fidelity' });
    a = await createTenant(d, 'fid-a');
    b = await createTenant(d, 'fid-b');
    req = http(d.url);
  });
  after(async () => d?.close());

  describe('usage days is an integer period', () => {
    it('accepts any whole number of days from 1 to 90', async () => {
      for (const days of [1, 7, 14, 30, 45, 90]) {
        const r = await req('GET', `/api/v1/keys/usage/?days=${days}`, { key: a.key });
        assert.equal(r.status, 200, `days=${days}: ${r.text}`);
        assert.equal(r.body.days, days);
        assert.equal(r.body.daily.length, days);
      }
    });
    it('refuses 0, 91, fractions and words with VALIDATION_FAILED on days', async () => {
      for (const days of ['0', '91', '7.5', 'week', '-7']) {
        const r = await req('GET', `/api/v1/keys/usage/?days=${days}`, { key: a.key });
        assert.equal(r.status, 400, `days=${days}`);
        assert.equal(r.body.code, 'VALIDATION_FAILED');
        assert.ok(r.body.fields?.days, `days=${days}: ${r.text}`);
      }
    });
  });

  describe('key grants accept the collection_id form', () => {
    let keyId: string;
    let col: { uuid: string; slug: string };
    before(async () => {
      col = (await req('POST', '/api/v1/collections/', { key: a.key, json: { name: 'Grant target' } })).body;
      keyId = (await req('POST', '/api/v1/keys/', { key: a.key, json: { name: 'scoped' } })).body.uuid;
    });
    it('by uuid and by slug, answering with the slug', async () => {
      const byId = await req('POST', `/api/v1/keys/${keyId}/collections/`, { key: a.key, json: { collection_id: col.uuid } });
      assert.equal(byId.status, 201, byId.text);
      assert.deepEqual(byId.body, { collection: col.slug, permission: 'read' });
      const bySlug = await req('POST', `/api/v1/keys/${keyId}/collections/`, {
        key: a.key,
        json: { collection_id: col.slug, permission: 'write' },
      });
      assert.equal(bySlug.status, 200, bySlug.text);
      assert.deepEqual(bySlug.body, { collection: col.slug, permission: 'write' });
    });
    it('neither field is a validation error on collection', async () => {
      const r = await req('POST', `/api/v1/keys/${keyId}/collections/`, { key: a.key, json: { permission: 'read' } });
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 'VALIDATION_FAILED');
      assert.ok(r.body.fields?.collection, r.text);
    });
    it("another tenant's collection uuid is 404, exactly like a uuid that never existed", async () => {
      const theirs = (await req('POST', '/api/v1/collections/', { key: b.key, json: { name: 'Not yours', is_public: false } })).body;
      const r = await req('POST', `/api/v1/keys/${keyId}/collections/`, { key: a.key, json: { collection_id: theirs.uuid } });
      const never = await req('POST', `/api/v1/keys/${keyId}/collections/`, {
        key: a.key,
        json: { collection_id: '00000000-0000-4000-8000-000000000000' },
      });
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'COLLECTION_NOT_FOUND');
      assert.equal(never.status, 404);
      // Byte for byte the never-existing answer once the uuid the caller sent is masked: nothing about it leaks.
      assert.equal(r.text.replaceAll(theirs.uuid, 'ID'), never.text.replaceAll('00000000-0000-4000-8000-000000000000', 'ID'));
      assert.ok(!r.text.includes(theirs.slug));
    });
  });

  it('unsubscribing from a deleted collection answers 404, like GET on it', async () => {
    const pub = (await req('POST', '/api/v1/collections/', { key: b.key, json: { name: 'Public soon gone', is_public: true } })).body;
    assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: a.key })).status, 200);
    assert.equal((await req('DELETE', `/api/v1/collections/${pub.uuid}/`, { key: b.key })).status, 204);
    assert.equal((await req('GET', `/api/v1/collections/${pub.uuid}/`, { key: a.key })).status, 404);
    const r = await req('DELETE', `/api/v1/collections/${pub.slug}/subscribe/`, { key: a.key });
    assert.equal(r.status, 404, r.text);
    assert.equal(r.body.code, 'SUBSCRIPTION_NOT_FOUND');
  });

  describe('unknown methods on known routes', () => {
    it('answer 405 with the envelope and an Allow header', async () => {
      const cases: [string, string, string[]][] = [
        ['PUT', '/api/v1/collections/', ['GET', 'POST']],
        ['DELETE', '/api/v1/search/', ['POST']],
        ['POST', '/api/v1/keys/current/', ['GET']],
        ['PATCH', `/api/v1/documents/00000000-0000-4000-8000-000000000000/download/`, ['GET']],
      ];
      for (const [method, path, allowed] of cases) {
        const r = await req(method, path, { key: a.key, json: {} });
        assert.equal(r.status, 405, `${method} ${path}: ${r.text}`);
        assert.equal(r.body.code, 'METHOD_NOT_ALLOWED');
        assert.ok(r.body.error);
        const allow = (r.headers.get('allow') ?? '').split(/,\s*/).sort();
        for (const m of allowed) assert.ok(allow.includes(m), `${method} ${path}: Allow ${allow.join(',')} lacks ${m}`);
      }
    });
    it('still needs a key first: 401 without one, never leaking which methods exist', async () => {
      const r = await req('PUT', '/api/v1/collections/');
      assert.equal(r.status, 401);
    });
    it('unknown paths stay 404', async () => {
      const r = await req('GET', '/api/v1/collectionz/', { key: a.key });
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'NOT_FOUND');
    });
  });
});

describe('the document list without limit is every visible document', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  const N = 1_250; // more than the old default page (100) and than one database batch (500)
  before(async () => {
    d = await startTestDaemon({ label: 'list-all' });
    a = await createTenant(d, 'list-a');
    b = await createTenant(d, 'list-b');
    req = http(d.url);
    for (const [t, name, n] of [
      [a, 'Many', N],
      [b, 'Theirs', 40],
    ] as const) {
      const col = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name } })).body;
      await d.deps.sql`
        insert into documents (collection_id, title, source_type, status, tags, created_at)
        select ${col.uuid}, ${name} || ' ' || g, 'text', case when g % 5 = 0 then 'failed' else 'indexed' end,
               array['t' || (g % 3)], now() - g * interval '1 second'
          from generate_series(1, ${n}::int) g`;
    }
  });
  after(async () => d?.close());

  it('answers one array of all of them, newest first, with no next link', async () => {
    const r = await req('GET', '/api/v1/documents/', { key: a.key });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(r.body.length, N);
    assert.equal(new Set(r.body.map((x: { uuid: string }) => x.uuid)).size, N);
    assert.equal(r.headers.get('link'), null);
    assert.equal(r.headers.get('x-next-cursor'), null);
    const times = r.body.map((x: { created_at: string }) => Date.parse(x.created_at));
    assert.deepEqual(
      times,
      [...times].sort((x: number, y: number) => y - x),
    );
    assert.ok(
      r.body.every((x: { title: string }) => x.title.startsWith('Many ')),
      "only the caller's documents",
    );
  });
  it('filters apply without limit too', async () => {
    const r = await req('GET', '/api/v1/documents/?status=failed&tag=t1', { key: a.key });
    assert.equal(r.status, 200);
    const expected = Array.from({ length: N }, (_, i) => i + 1).filter((g) => g % 5 === 0 && g % 3 === 1).length;
    assert.equal(r.body.length, expected);
  });
  it('an empty list is []', async () => {
    const r = await req('GET', '/api/v1/documents/?tag=nothing-has-this', { key: a.key });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, []);
  });
  it('with limit it is still one page with a next link', async () => {
    const r = await req('GET', '/api/v1/documents/?limit=100', { key: a.key });
    assert.equal(r.body.length, 100);
    assert.ok(r.headers.get('link'));
  });
  it('another tenant sees none of them', async () => {
    const r = await req('GET', '/api/v1/documents/', { key: b.key });
    assert.equal(r.body.length, 40);
    assert.ok(r.body.every((x: { title: string }) => x.title.startsWith('Theirs ')));
  });
});

describe('offline API docs in development', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ label: 'redoc', env: { NODE_ENV: 'development' } });
  });
  after(async () => d?.close());
  it('/api/v1/redoc/ leads to docs that load nothing from another origin', async () => {
    const req = http(d.url);
    const moved = await req('GET', '/api/v1/redoc/');
    assert.ok([301, 302, 308].includes(moved.status), `redoc: ${moved.status}`);
    const page = await req('GET', moved.headers.get('location') ?? '');
    assert.equal(page.status, 200);
    const srcs = [...page.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(srcs.length > 0, 'the page loads its script');
    for (const src of srcs) {
      assert.ok(src.startsWith('/'), `external asset: ${src}`);
      const asset = await req('GET', src);
      assert.equal(asset.status, 200, src);
      assert.ok(asset.text.length > 1000, `${src} is served`);
    }
  });
});

describe('an upload with no multipart body is NO_FILE_PROVIDED', () => {
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let colId: string;
  before(async () => {
    d = await startTestDaemon({ label: 'fidelity-nofile', worker: false });
    t = await createTenant(d, 'nofile');
    req = http(d.url);
    colId = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'No file' } })).body.uuid;
  });
  after(async () => d?.close());

  const bodies: [string, Record<string, string>, string | undefined][] = [
    ['an empty body with no content type', {}, undefined],
    ['an empty multipart body', { 'content-type': 'multipart/form-data; boundary=xyz' }, ''],
    ['a plain-text body', { 'content-type': 'text/plain' }, 'hello'],
    ['a form-urlencoded body', { 'content-type': 'application/x-www-form-urlencoded' }, 'file=hello'],
    ['an octet-stream body', { 'content-type': 'application/octet-stream' }, 'hello'],
  ];
  for (const [name, headers, body] of bodies) {
    it(`upload: ${name}`, async () => {
      const r = await req('POST', `/api/v1/collections/${colId}/documents/`, { key: t.key, headers, body });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 'NO_FILE_PROVIDED', r.text);
      assert.ok(r.body.error);
    });
  }
  it('replace: a plain-text body and an empty body', async () => {
    const doc = (
      await req('POST', `/api/v1/collections/${colId}/documents/`, { key: t.key, json: { source_type: 'text', content: 'x', title: 'x' } })
    ).body;
    for (const [headers, body] of [
      [{ 'content-type': 'text/plain' }, 'hello'],
      [{}, undefined],
    ] as const) {
      const r = await req('POST', `/api/v1/documents/${doc.uuid}/replace/`, { key: t.key, headers: { ...headers }, body });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 'NO_FILE_PROVIDED', r.text);
    }
  });
  it("another tenant's collection is still 404 before the body is looked at", async () => {
    const other = await createTenant(d, 'nofile-b');
    const r = await req('POST', `/api/v1/collections/${colId}/documents/`, {
      key: other.key,
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    assert.equal(r.status, 404, r.text);
  });
});

describe('rate-limit headers on every API response', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  before(async () => {
    d = await startTestDaemon({
      label: 'fidelity-anon',
      worker: false,
      env: { RATE_LIMITS_ENABLED: 'true', ANONYMOUS_RATE_LIMIT_PER_MINUTE: '5' },
    });
    req = http(d.url);
  });
  after(async () => d?.close());

  it('401s and the schema carry the per-IP budget, counting down', async () => {
    const seen: number[] = [];
    for (const [p, key] of [
      ['/api/v1/collections/', undefined],
      ['/api/v1/collections/', 'svc_notakeyatall'],
      ['/api/v1/schema/', undefined],
    ] as const) {
      // The window's end is after the moment the request was sent (a check after the answer
      // would fail for a request answered in the window's last milliseconds).
      const sent = Date.now() / 1000;
      const r = await req('GET', p, { key });
      assert.ok([200, 401].includes(r.status), `${p}: ${r.status}`);
      assert.equal(r.headers.get('x-ratelimit-limit'), '5', `${p} X-RateLimit-Limit`);
      seen.push(Number(r.headers.get('x-ratelimit-remaining')));
      assert.ok(Number(r.headers.get('x-ratelimit-reset')) > sent, `${p} X-RateLimit-Reset`);
    }
    assert.deepEqual(seen, [4, 3, 2]);
  });
  it('past the budget: 429 with Retry-After and the envelope, and a valid key is unaffected', async () => {
    let last = await req('GET', '/api/v1/schema/');
    for (let i = 0; i < 5 && last.status !== 429; i++) last = await req('GET', '/api/v1/collections/');
    assert.equal(last.status, 429, last.text);
    assert.equal(last.body.code, 'RATE_LIMIT_EXCEEDED');
    assert.ok(Number(last.headers.get('retry-after')) >= 1);
    assert.equal(last.headers.get('x-ratelimit-remaining'), '0');
    const t = await createTenant(d, 'anon-ok');
    const ok = await req('GET', '/api/v1/collections/', { key: t.key });
    assert.equal(ok.status, 200, ok.text);
  });
});
