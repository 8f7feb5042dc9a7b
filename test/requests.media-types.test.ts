// One reading of Content-Type on every route (RFC 9110 §8.3.1: type "/" subtype, then
// *( OWS ";" OWS [ parameter ] ), so empty parameters are allowed and names are case-insensitive):
// a JSON route (search, collections), the upload route's JSON branch, /mcp and the multipart upload
// give the same verdict for the same header, and a header that is no media type is refused alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('request media types: one rule on every route', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string; slug: string };

  before(async () => {
    d = await startTestDaemon({ label: 'mediatypes' });
    req = http(d.url);
    t = await createTenant(d, 'mt');
    other = await createTenant(d, 'mto');
    coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Media' } })).body;
  });
  after(async () => d?.close());

  /** The same JSON request to each kind of route, with `ct` as its Content-Type; the statuses and codes. */
  async function everyRoute(ct: string, key = t.key) {
    const send = async (method: string, path: string, body: unknown, extra: Record<string, string> = {}) => {
      const res = await fetch(d.url + path, {
        method,
        headers: { 'content-type': ct, authorization: `Bearer ${key}`, ...extra },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      let code: string | undefined;
      try {
        code = JSON.parse(text).code;
      } catch {}
      return { status: res.status, code, text };
    };
    return {
      search: await send('POST', '/api/v1/search/', { query: 'anything' }),
      collections: await send('POST', '/api/v1/collections/', { name: `c ${Math.random()}` }),
      upload: await send('POST', `/api/v1/collections/${coll.uuid}/documents/`, { source_type: 'text', title: 'x', content: 'x' }),
      mcp: await send('POST', '/mcp', INITIALIZE, { accept: 'application/json, text/event-stream' }),
    };
  }

  const statuses = (r: Awaited<ReturnType<typeof everyRoute>>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.status]));

  it('JSON with empty parameters, white space around `;`, or names in capitals is JSON everywhere', async () => {
    for (const ct of [
      'application/json',
      'application/json;;;',
      'application/json ; charset=utf-8',
      'APPLICATION/JSON;CHARSET="utf-8"',
      'application/json;charset=utf-8;',
      'application/problem+json',
    ]) {
      const r = await everyRoute(ct);
      assert.deepEqual(statuses(r), { search: 200, collections: 201, upload: 201, mcp: 200 }, `${ct}: ${JSON.stringify(r)}`);
    }
  });

  it('a header that is no media type is refused the same way everywhere', async () => {
    for (const ct of ['application/json; charset', 'application/json; =utf-8', 'application/json/x', 'application /json', 'json', ';']) {
      const r = await everyRoute(ct);
      const answers = Object.values(r).map((x) => `${x.status} ${x.code}`);
      assert.deepEqual(new Set(answers), new Set(['400 VALIDATION_FAILED']), `${ct}: ${JSON.stringify(r)}`);
      const fields = Object.values(r).map((x) => JSON.stringify(JSON.parse(x.text).fields));
      assert.equal(new Set(fields).size, 1, `${ct}: one answer, ${fields.join(' | ')}`);
    }
  });

  it('a media type that is not JSON is not JSON on /mcp either', async () => {
    for (const ct of ['text/plain', 'application/jsonx', 'text/plain; x="application/json"']) {
      const r = await everyRoute(ct);
      assert.equal(r.search.status, 400, ct);
      assert.equal(r.mcp.status, r.search.status, `${ct}: ${r.mcp.text}`);
      assert.equal(r.mcp.code, r.search.code, `${ct}: ${r.mcp.text}`);
    }
  });

  it('a multipart upload reads its boundary through the same rule', async () => {
    const body = `--XB\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XB--\r\n`;
    for (const ct of ['multipart/form-data; boundary=XB', 'multipart/form-data;; boundary=XB', 'Multipart/Form-Data ; BOUNDARY="XB"']) {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body, headers: { 'content-type': ct } });
      assert.equal(r.status, 201, `${ct}: ${r.text}`);
    }
  });

  it('cross-tenant: the rule never reveals another tenant’s collection', async () => {
    const r = await everyRoute('application/json;;;', other.key);
    assert.equal(r.upload.status, 404, r.upload.text);
    assert.equal(r.upload.code, 'COLLECTION_NOT_FOUND');
  });
});
