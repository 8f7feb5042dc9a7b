// Old edges of request input, each refused at the first check with the envelope: a relative path
// over 1,024 characters (never silently cut to its last segment, which made two deep files look the
// same to `docs sync`), `application/jsonx` taken for JSON, and `localhost.` (trailing dot) accepted
// when a webhook or URL document is created.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('request edges', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let t: Tenant;
  let coll: { uuid: string };
  const docCount = async () => (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from documents`)[0]!.n;

  before(async () => {
    d = await startTestDaemon({ label: 'edges' });
    req = http(d.url);
    t = await createTenant(d, 'edges');
    coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Edges' } })).body;
  });
  after(async () => d?.close());

  function assert400(r: { status: number; body: any; text: string }, code = 'VALIDATION_FAILED') {
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, code, r.text);
    assert.equal(typeof r.body.error, 'string');
  }

  const upload = (field: string, name: string) => {
    const f = new FormData();
    f.append(field, new Blob(['hello deep file']), name);
    return req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
  };

  it('a relative path of exactly 1,024 characters is kept whole', async () => {
    const deep = `${'d/'.repeat(508)}abcd.txt`;
    assert.equal(deep.length, 1024);
    const r = await upload('file', deep);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.original_filename, deep);
  });

  for (const field of ['file', 'files']) {
    it(`a relative path over 1,024 characters (${field}): 400 with fields naming the limit, nothing stored`, async () => {
      const rows = await docCount();
      for (const deep of [`${'d/'.repeat(600)}same.txt`, `${'e/'.repeat(600)}same.txt`, `${'x'.repeat(1100)}.txt`]) {
        const r = await upload(field, deep);
        assert400(r);
        assert.match(JSON.stringify(r.body.fields?.[field]), /1,?024/, r.text);
      }
      assert.equal(await docCount(), rows);
    });
  }

  it('application/jsonx (and other look-alikes) is not JSON', async () => {
    const rows = await docCount();
    const body = JSON.stringify({ source_type: 'text', content: 'x', title: 'x' });
    for (const ct of ['application/jsonx', 'application/json-patch', 'text/application/json', 'application/jsonp; charset=utf-8']) {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body, headers: { 'content-type': ct } });
      assert.equal(r.status, 400, `${ct}: ${r.text}`);
      assert.equal(typeof r.body.code, 'string');
      const c = await req('POST', '/api/v1/collections/', {
        key: t.key,
        body: JSON.stringify({ name: 'jx' }),
        headers: { 'content-type': ct },
      });
      assert.equal(c.status, 400, `collections ${ct}: ${c.text}`);
    }
    assert.equal(await docCount(), rows);
    // Real JSON still is, with parameters and +json suffixes.
    for (const ct of ['application/json', 'Application/JSON; charset=utf-8']) {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body, headers: { 'content-type': ct } });
      assert.equal(r.status, 201, `${ct}: ${r.text}`);
    }
  });

  it('a JSON document whose body is not JSON: 400 VALIDATION_FAILED, not 500 (found by test/fuzz.requests.test.ts)', async () => {
    for (const body of ['].1e+195', '--XB\r\nContent-Disposition: form-data\r\n\r\nv\r\n--XB--\r\n', '{"source_type":']) {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
        key: t.key,
        body,
        headers: { 'content-type': 'application/json' },
      });
      assert400(r);
    }
  });

  for (const host of ['localhost.', 'LOCALHOST.', 'api.localhost.', 'printer.local.', 'metadata.google.internal.']) {
    it(`${host} (trailing dot) is refused when a webhook or URL document is created`, async () => {
      const url = `http://${host}:9/hook`;
      assert400(await req('POST', '/api/v1/webhooks/', { key: t.key, json: { url } }));
      const rows = await docCount();
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, json: { source_type: 'url', url } });
      assert.equal(r.status, 400, r.text);
      assert.equal(await docCount(), rows);
    });
  }
});
