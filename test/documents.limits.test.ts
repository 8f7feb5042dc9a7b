// Request-size and input limits of the upload path: the exact 50 MiB file boundary, NUL bytes,
// the multipart field count, the JSON body cap and the text-document size cap.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { blobFiles, multipartBody, openFdsUnder, until } from './helpers/chaos.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const MiB = 1024 * 1024;
const LIMIT = 50 * MiB; // 52,428,800 bytes: "at most 50 MB"
const BOUNDARY = '----limitsBoundary0123456789';

describe('upload and request-body limits', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string; slug: string };
  let txt: Buffer<ArrayBuffer>;
  // Built once, up front: filling 50 MiB blocks this process (which is also the daemon) long
  // enough for an idle keep-alive socket to expire under the client's feet mid-test.
  let exact: Blob;
  let over: Blob;

  before(async () => {
    d = await startTestDaemon({
      label: 'doc_limits',
      env: { MAX_JSON_BODY_BYTES: String(64 * 1024), MAX_TEXT_DOCUMENT_BYTES: String(100_000) },
    });
    t = await createTenant(d, 'limits');
    other = await createTenant(d, 'limits-other');
    req = http(d.url);
    coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Limits' } })).body;
    txt = await readFile(samplePath('sample.txt'));
    exact = new Blob([Buffer.alloc(LIMIT, 'a')], { type: 'text/plain' });
    over = new Blob([Buffer.alloc(LIMIT + 1, 'a')], { type: 'text/plain' });
  });
  after(async () => d?.close());

  const uploadPath = () => `/api/v1/collections/${coll.uuid}/documents/`;
  const send = (p: string, body: Buffer | FormData, key = t.key) =>
    req('POST', p, {
      key,
      body: body instanceof FormData ? body : new Uint8Array(body),
      ...(body instanceof Buffer ? { headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } } : {}),
    });
  const rowCount = async () => (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from documents`)[0]!.n;
  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
    assert.equal(typeof r.body.error, 'string', r.text);
  }
  /** No temp file, no unreferenced blob, no open fd under the data dir. */
  async function assertNoLeak() {
    const referenced = (
      await d.deps.sql<{ k: string }[]>`
        select blob_key as k from documents where blob_key is not null union select blob_key from orphan_blobs`
    ).map((r) => r.k);
    const extra = async () => (await blobFiles(d.dataDir)).filter((f) => !referenced.includes(f));
    await until(async () => ((await extra()).length === 0 ? true : undefined), 5000, 'no temp file or unreferenced blob').catch(
      async (err) => assert.fail(`${err.message}: ${JSON.stringify(await extra())}`),
    );
    await until(async () => ((await openFdsUnder(d.dataDir)).length === 0 ? true : undefined), 5000, 'no open fd');
  }

  describe('the 50 MiB boundary', () => {
    it('a file of exactly 52,428,800 bytes is accepted, on upload and on replace', async () => {
      const f = new FormData();
      f.append('file', exact, 'exact.txt');
      const r = await send(uploadPath(), f);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.file_size, LIMIT);
      const [row] = await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${r.body.uuid}`;
      assert.equal((await stat(path.join(d.dataDir, 'blobs', row!.blob_key))).size, LIMIT);

      const g = new FormData();
      g.append('file', exact, 'exact2.txt');
      const rr = await send(`/api/v1/documents/${r.body.uuid}/replace/`, g);
      assert.equal(rr.status, 200, rr.text);
      assert.equal(rr.body.file_size, LIMIT);
      await assertNoLeak();
    });

    it('one byte more is FILE_TOO_LARGE on upload and replace, with nothing left behind', async () => {
      const rows = await rowCount();
      const f = new FormData();
      f.append('file', over, 'over.txt');
      assertError(await send(uploadPath(), f), 400, 'FILE_TOO_LARGE');
      const small = new FormData();
      small.append('file', new Blob([txt]), 'small.txt');
      const doc = await send(uploadPath(), small);
      assert.equal(doc.status, 201, doc.text);
      const g = new FormData();
      g.append('file', over, 'over.txt');
      assertError(await send(`/api/v1/documents/${doc.body.uuid}/replace/`, g), 400, 'FILE_TOO_LARGE');
      assert.equal(await rowCount(), rows + 1);
      await assertNoLeak();
    });
  });

  describe('NUL bytes and field limits', () => {
    it('a NUL byte in the file name or a field is 400 VALIDATION_FAILED, not 500', async () => {
      const rows = await rowCount();
      const cases = [
        multipartBody(BOUNDARY, [{ name: 'file', filename: 'a\u0000b.txt', type: 'text/plain', data: txt }]),
        multipartBody(BOUNDARY, [
          { name: 'file', filename: 'a.txt', type: 'text/plain', data: txt },
          { name: 'title', data: 'bad\u0000title' },
        ]),
        multipartBody(BOUNDARY, [
          { name: 'file', filename: 'a.txt', type: 'text/plain', data: txt },
          { name: 'tags', data: 'ok,b\u0000d' },
        ]),
        multipartBody(BOUNDARY, [
          { name: 'files', filename: 'a.txt', type: 'text/plain', data: txt },
          { name: 'files', filename: 'b\u0000.txt', type: 'text/plain', data: txt },
        ]),
        multipartBody(BOUNDARY, [
          { name: 'source_type', data: 'text' },
          { name: 'content', data: 'hello\u0000world' },
        ]),
      ];
      for (const body of cases) assertError(await send(uploadPath(), body), 400, 'VALIDATION_FAILED');
      assertError(
        await req('POST', uploadPath(), { key: t.key, json: { source_type: 'text', content: 'x\u0000y' } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await req('POST', uploadPath(), { key: t.key, json: { source_type: 'text', content: 'xy', title: 'a\u0000' } }),
        400,
        'VALIDATION_FAILED',
      );
      const doc = await send(uploadPath(), multipartBody(BOUNDARY, [{ name: 'file', filename: 'a.txt', type: 'text/plain', data: txt }]));
      assert.equal(doc.status, 201, doc.text);
      const bad = multipartBody(BOUNDARY, [{ name: 'file', filename: 'x\u0000.txt', type: 'text/plain', data: txt }]);
      assertError(await send(`/api/v1/documents/${doc.body.uuid}/replace/`, bad), 400, 'VALIDATION_FAILED');
      assert.equal(await rowCount(), rows + 1);
      await assertNoLeak();
    });

    it('a NUL byte in a search query (REST and MCP) is 400, not 500', async () => {
      assertError(await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'hello\u0000world' } }), 400, 'VALIDATION_FAILED');
      assertError(
        await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'hello', tags: ['a\u0000'] } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'hello', collection: 'a\u0000' } }),
        400,
        'VALIDATION_FAILED',
      );
      const mcp = await req('POST', '/mcp', {
        key: t.key,
        headers: { accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_documents', arguments: { query: 'a\u0000b' } } },
      });
      assert.equal(mcp.status, 200, mcp.text);
      assert.ok(mcp.body.result?.isError || mcp.body.error, `MCP refuses the query: ${mcp.text}`);
      assert.doesNotMatch(mcp.text, /INTERNAL_ERROR|SEARCH_UNAVAILABLE/);
    });

    it('51 fields are refused with 400 VALIDATION_FAILED instead of being dropped silently', async () => {
      const rows = await rowCount();
      const fields = Array.from({ length: 51 }, (_, i) => ({ name: `extra${i}`, data: 'v' }));
      const r = await send(
        uploadPath(),
        multipartBody(BOUNDARY, [...fields, { name: 'file', filename: 'a.txt', type: 'text/plain', data: txt }]),
      );
      assertError(r, 400, 'VALIDATION_FAILED');
      assert.match(r.body.error, /50 fields/);
      // 50 fields are fine (unknown ones are ignored).
      const ok = await send(
        uploadPath(),
        multipartBody(BOUNDARY, [...fields.slice(0, 50), { name: 'file', filename: 'a.txt', type: 'text/plain', data: txt }]),
      );
      assert.equal(ok.status, 201, ok.text);
      assert.equal(await rowCount(), rows + 1);
      await assertNoLeak();
    });
  });

  describe('JSON bodies', () => {
    it('a JSON body over MAX_JSON_BODY_BYTES is 413 PAYLOAD_TOO_LARGE, with or without Content-Length', async () => {
      const big = { query: 'x'.repeat(70 * 1024) };
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: big });
      assertError(r, 413, 'PAYLOAD_TOO_LARGE');
      // The unread rest of the body is discarded and the socket closed: the client must not reuse it.
      assert.equal(r.headers.get('connection'), 'close');
      const chunked = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(JSON.stringify(big)));
          c.close();
        },
      });
      const res = await fetch(`${d.url}/api/v1/collections/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: chunked,
        duplex: 'half',
      } as RequestInit);
      assert.equal(res.status, 413);
      assert.equal((await res.json()).code, 'PAYLOAD_TOO_LARGE');
      // Under the cap, the same routes answer normally.
      assert.equal((await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'x'.repeat(500), mode: 'text' } })).status, 200);
      assert.equal((await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Under the cap' } })).status, 201);
      // MCP is a JSON route too.
      assertError(
        await req('POST', '/mcp', {
          key: t.key,
          headers: { accept: 'application/json, text/event-stream' },
          json: { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(70 * 1024) } },
        }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });

    it('authentication is still decided first: 401 for an oversized body without a key', async () => {
      assertError(await req('POST', '/api/v1/search/', { json: { query: 'x'.repeat(70 * 1024) } }), 401, 'AUTHENTICATION_REQUIRED');
    });

    it('text documents: at most MAX_TEXT_DOCUMENT_BYTES of content, from JSON and from multipart', async () => {
      const rows = await rowCount();
      // The text route accepts a JSON body large enough for the biggest text document, even above the JSON cap.
      const ok = await req('POST', uploadPath(), { key: t.key, json: { source_type: 'text', content: 'é'.repeat(50_000) } });
      assert.equal(ok.status, 201, ok.text);
      const tooBig = 'a'.repeat(100_001);
      const r = await req('POST', uploadPath(), { key: t.key, json: { source_type: 'text', content: tooBig } });
      assertError(r, 400, 'VALIDATION_FAILED');
      assert.ok(r.body.fields?.content, r.text);
      // Bytes count, not characters: 50,001 two-byte characters are over 100,000 bytes.
      assertError(
        await req('POST', uploadPath(), { key: t.key, json: { source_type: 'text', content: 'é'.repeat(50_001) } }),
        400,
        'VALIDATION_FAILED',
      );
      const m = multipartBody(BOUNDARY, [
        { name: 'source_type', data: 'text' },
        { name: 'content', data: tooBig },
      ]);
      const mr = await send(uploadPath(), m);
      assertError(mr, 400, 'VALIDATION_FAILED');
      assert.ok(mr.body.fields?.content, mr.text);
      // Far over: refused as a whole body.
      assertError(
        await req('POST', uploadPath(), { key: t.key, json: { source_type: 'text', content: 'a'.repeat(1024 * 1024) } }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      assert.equal(await rowCount(), rows + 1);
    });

    it('the OpenAPI document declares the 413 on every route that takes JSON', async () => {
      const schema = (await req('GET', '/api/v1/schema/')).body;
      for (const [p, item] of Object.entries<any>(schema.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          if (!op.requestBody?.content?.['application/json']) continue;
          const r = op.responses['413'];
          assert.ok(r, `${method} ${p} documents 413`);
          assert.equal(r.content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
          assert.match(r.description, /PAYLOAD_TOO_LARGE/);
        }
      }
      assert.match(schema.paths['/api/v1/search/'].post.requestBody.description, /MAX_JSON_BODY_BYTES.*413 PAYLOAD_TOO_LARGE/);
      assert.match(schema.paths['/api/v1/collections/{uuid}/documents/'].post.requestBody.description, /MAX_TEXT_DOCUMENT_BYTES/);
    });

    it('limits never reveal another tenant’s collection: 404 stays 404 under the cap', async () => {
      assertError(
        await req('POST', uploadPath(), { key: other.key, json: { source_type: 'text', content: 'x' } }),
        404,
        'COLLECTION_NOT_FOUND',
      );
    });
  });
});
