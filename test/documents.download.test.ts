import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

interface Coll {
  uuid: string;
  slug: string;
}

describe('document download', () => {
  let d: TestDaemon;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: Coll;
  let pdfId: string;
  let n = 0;
  // The daemon's clock, moved by the expiry test.
  let offsetMs = 0;

  before(async () => {
    d = await startTestDaemon({ label: 'doc_download', clock: { now: () => new Date(Date.now() + offsetMs) } });
    owner = await createTenant(d, 'dl-owner');
    other = await createTenant(d, 'dl-other');
    req = http(d.url);
    coll = await createCollection(owner.key);
    pdfId = await upload(coll, 'sample.pdf', 'application/pdf');
  });
  after(async () => d?.close());

  async function createCollection(key: string, isPublic = false): Promise<Coll> {
    const r = await req('POST', '/api/v1/collections/', { key, json: { name: `Downloads ${++n}`, is_public: isPublic } });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  async function upload(c: Coll, file: string, type: string, name = file, key = owner.key): Promise<string> {
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath(file))], { type }), name);
    const r = await req('POST', `/api/v1/collections/${c.uuid}/documents/`, { key, body: f });
    assert.equal(r.status, 201, r.text);
    return r.body.uuid;
  }
  async function link(id: string, key = owner.key): Promise<string> {
    const r = await req('GET', `/api/v1/documents/${id}/download/`, { key });
    assert.equal(r.status, 302, r.text);
    return r.headers.get('location')!;
  }
  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
  }
  const getFile = (url: string) => fetch(url, { redirect: 'manual' });

  it('302 to a signed /files/ URL that streams the original bytes with name and type', async () => {
    const r = await req('GET', `/api/v1/documents/${pdfId}/download/`, { key: owner.key });
    assert.equal(r.status, 302, r.text);
    const location = r.headers.get('location')!;
    assert.ok(location.startsWith(`${d.url}/files/`), location);
    const res = await getFile(location); // no bearer: the signature is the credential
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), await readFile(samplePath('sample.pdf')));
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="sample\.pdf"/);
    assert.equal(res.headers.get('content-length'), String((await readFile(samplePath('sample.pdf'))).length));
    assert.match(res.headers.get('cache-control') ?? '', /no-store/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });

  it('non-ASCII and quoted file names are encoded safely in Content-Disposition', async () => {
    const id = await upload(coll, 'sample.txt', 'text/plain', 'résumé final.txt');
    const res = await getFile(await link(id));
    assert.equal(res.status, 200);
    const cd = res.headers.get('content-disposition')!;
    assert.equal(cd, `attachment; filename="r_sum_ final.txt"; filename*=UTF-8''${encodeURIComponent('résumé final.txt')}`);

    // A quote in the name (sent as a quoted-pair by a raw client) cannot break out of the header value.
    const boundary = 'xyzBOUNDARY';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="say \\"hi\\".txt"\r\nContent-Type: text/plain\r\n\r\n`,
      ),
      await readFile(samplePath('sample.txt')),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
      key: owner.key,
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.original_filename, 'say "hi".txt');
    const quoted = (await getFile(await link(r.body.uuid))).headers.get('content-disposition')!;
    assert.equal(quoted, `attachment; filename="say _hi_.txt"; filename*=UTF-8''${encodeURIComponent('say "hi".txt')}`);
  });

  it('403 DOWNLOAD_LINK_INVALID for tampered tokens', async () => {
    const location = await link(pdfId);
    const token = location.split('/files/')[1]!;
    const [payload, sig] = token.split('.');
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');
    const otherId = await upload(coll, 'sample.md', 'text/markdown');
    const otherPayload = (await link(otherId)).split('/files/')[1]!.split('.')[0]!;
    const forgedPayload = Buffer.from(Buffer.from(payload!, 'base64url').toString().replace(/:\d+$/, ':9999999999')).toString('base64url');
    for (const bad of [
      `${payload}.${flip(sig!)}`,
      `${flip(payload!)}.${sig}`,
      `${otherPayload}.${sig}`,
      `${forgedPayload}.${sig}`,
      payload!,
      'garbage',
      `${payload}.`,
    ]) {
      const res = await getFile(`${d.url}/files/${bad}`);
      assert.equal(res.status, 403, bad);
      assert.equal((await res.json()).code, 'DOWNLOAD_LINK_INVALID');
    }
  });

  it('a link is valid for one hour, then 403', async () => {
    const location = await link(pdfId);
    try {
      offsetMs = 59 * 60_000;
      assert.equal((await getFile(location)).status, 200);
      offsetMs = 2 * 3600_000;
      const res = await getFile(location);
      assert.equal(res.status, 403);
      assert.equal((await res.json()).code, 'DOWNLOAD_LINK_INVALID');
    } finally {
      offsetMs = 0;
    }
  });

  it('404 DOCUMENT_FILE_NOT_FOUND for text and URL documents', async () => {
    for (const json of [
      { source_type: 'text', content: 'inline words' },
      { source_type: 'url', url: 'https://example.com/page' },
    ]) {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: owner.key, json });
      assert.equal(r.status, 201, r.text);
      assertError(await req('GET', `/api/v1/documents/${r.body.uuid}/download/`, { key: owner.key }), 404, 'DOCUMENT_FILE_NOT_FOUND');
    }
  });

  it('404 DOCUMENT_FILE_NOT_FOUND when the blob is gone (before or after the link was made)', async () => {
    const id = await upload(coll, 'sample.csv', 'text/csv');
    const location = await link(id);
    const [row] = await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${id}`;
    await rm(path.join(d.dataDir, 'blobs', row!.blob_key));
    assertError(await req('GET', `/api/v1/documents/${id}/download/`, { key: owner.key }), 404, 'DOCUMENT_FILE_NOT_FOUND');
    const res = await getFile(location);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, 'DOCUMENT_FILE_NOT_FOUND');
  });

  it('a link dies with its file: replaced or deleted documents answer 404', async () => {
    const id = await upload(coll, 'sample.txt', 'text/plain');
    const old = await link(id);
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath('sample.md'))]), 'sample.md');
    assert.equal((await req('POST', `/api/v1/documents/${id}/replace/`, { key: owner.key, body: f })).status, 200);
    assert.equal((await getFile(old)).status, 404, 'old link does not serve the new file');
    const fresh = await getFile(await link(id));
    assert.deepEqual(Buffer.from(await fresh.arrayBuffer()), await readFile(samplePath('sample.md')));

    const current = await link(id);
    // Reprocessing keeps the same stored file, so an issued link keeps working.
    assert.equal((await req('POST', `/api/v1/documents/${id}/reprocess/`, { key: owner.key })).status, 200);
    assert.equal((await getFile(current)).status, 200, 'a link survives reprocess');
    assert.equal((await req('DELETE', `/api/v1/documents/${id}/`, { key: owner.key })).status, 204);
    assert.equal((await getFile(current)).status, 404);
    assertError(await req('GET', `/api/v1/documents/${id}/download/`, { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
  });

  it('404 DOCUMENT_NOT_FOUND for another tenant and malformed ids; 401 without a key', async () => {
    assertError(await req('GET', `/api/v1/documents/${pdfId}/download/`, { key: other.key }), 404, 'DOCUMENT_NOT_FOUND');
    assertError(await req('GET', '/api/v1/documents/not-a-uuid/download/', { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
    assertError(await req('GET', `/api/v1/documents/${pdfId}/download/`), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('a subscriber of a public collection and a read-scoped key can download', async () => {
    const pub = await createCollection(owner.key, true);
    const id = await upload(pub, 'sample.rtf', 'application/rtf');
    assertError(await req('GET', `/api/v1/documents/${id}/download/`, { key: other.key }), 404, 'DOCUMENT_NOT_FOUND');
    assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: other.key })).status, 200);
    const res = await getFile(await link(id, other.key));
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), await readFile(samplePath('sample.rtf')));

    const k = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'reader', collections: [coll.slug] } });
    assert.equal((await getFile(await link(pdfId, k.body.key))).status, 200);
    assertError(await req('GET', `/api/v1/documents/${id}/download/`, { key: k.body.key }), 404, 'DOCUMENT_NOT_FOUND');
  });
});

describe('document download behind PUBLIC_URL', () => {
  let d: TestDaemon;
  after(async () => d?.close());

  it('links start with PUBLIC_URL without doubling its trailing slash, and the daemon serves their path', async () => {
    d = await startTestDaemon({ label: 'doc_download_public', env: { PUBLIC_URL: 'https://docs.example.com/' } });
    const direct = `http://127.0.0.1:${d.port}`;
    assert.equal(d.url, 'https://docs.example.com');
    const t = await createTenant(d, 'dl-public');
    const req = http(direct);
    const c = await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Public URL' } });
    assert.equal(c.status, 201, c.text);
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath('sample.pdf'))], { type: 'application/pdf' }), 'sample.pdf');
    const up = await req('POST', `/api/v1/collections/${c.body.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(up.status, 201, up.text);
    const r = await req('GET', `/api/v1/documents/${up.body.uuid}/download/`, { key: t.key });
    assert.equal(r.status, 302, r.text);
    const location = r.headers.get('location')!;
    assert.match(location, /^https:\/\/docs\.example\.com\/files\/[^/]+$/, location);
    const res = await fetch(`${direct}${new URL(location).pathname}`, { redirect: 'manual' });
    assert.equal(res.status, 200);
  });
});
