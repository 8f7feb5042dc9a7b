import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { BAD_FILES, samplePath } from './fixtures/samples.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { DETAIL_FIELDS, LIST_FIELDS } from './helpers/document-fields.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

interface Coll {
  uuid: string;
  slug: string;
  name: string;
}

describe('reading documents', () => {
  let d: TestDaemon;
  // Stand-in embedder: no model to load, so the file stays fast when run alongside others.
  let ollama: FakeOllama;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let a: Coll; // owner's, 25 small text files
  let b: Coll; // owner's, tagged and processed documents
  let pub: Coll; // other's public collection, subscribed by owner
  let priv: Coll; // other's private collection
  const ids: Record<string, string> = {};
  let n = 0;

  // No background worker: documents are processed on demand by calling the real task, so some stay pending.
  const runJob = (id: string) =>
    processDocumentTask(d.deps)({ documentId: id, generation: 1 }, { job: { attempts: 1, max_attempts: 5 } } as unknown as JobHelpers);

  async function createCollection(key: string, isPublic = false): Promise<Coll> {
    const r = await req('POST', '/api/v1/collections/', { key, json: { name: `Read ${++n}`, is_public: isPublic } });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  async function upload(key: string, c: Coll, file: string, fields: Record<string, string> = {}): Promise<string> {
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath(file))]), file);
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    const r = await req('POST', `/api/v1/collections/${c.uuid}/documents/`, { key, body: f });
    assert.equal(r.status, 201, r.text);
    return r.body.uuid;
  }
  const list = (key: string, query = '') => req('GET', `/api/v1/documents/${query}`, { key });
  const uuids = (r: { body: { uuid: string }[] }) => r.body.map((x) => x.uuid);
  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
  }

  before(async () => {
    ollama = await startFakeOllama();
    d = await startTestDaemon({ env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url }, label: 'doc_read' });
    owner = await createTenant(d, 'read-owner');
    other = await createTenant(d, 'read-other');
    req = http(d.url);
    a = await createCollection(owner.key);
    b = await createCollection(owner.key);
    pub = await createCollection(other.key, true);
    priv = await createCollection(other.key);
    assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: owner.key })).status, 200);

    // One batch request: many rows share a created_at millisecond, which the cursor must handle.
    const batch = new FormData();
    for (let i = 0; i < 25; i++) batch.append('files', new Blob([`Document number ${i}.`], { type: 'text/plain' }), `doc-${i}.txt`);
    const r = await req('POST', `/api/v1/collections/${a.uuid}/documents/`, { key: owner.key, body: batch });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.total_uploaded, 25);

    ids.pdf = await upload(owner.key, b, 'sample.pdf', { tags: 'Reports, Finance-2024' });
    ids.md = await upload(owner.key, b, 'sample.md', { tags: 'notes' });
    ids.empty = await upload(owner.key, b, BAD_FILES.emptyTxt, { tags: 'broken' });
    ids.pending = await upload(owner.key, b, 'sample.txt', { tags: 'reports-draft' });
    ids.pub = await upload(other.key, pub, 'sample.csv', { tags: 'shared' });
    ids.priv = await upload(other.key, priv, 'sample.json', { tags: 'reports' });
    for (const id of [ids.pdf, ids.md, ids.empty, ids.pub]) await runJob(id!);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  describe('list', () => {
    it('covers every visible collection (owned and subscribed) in the list item shape, newest first', async () => {
      const r = await list(owner.key, '?limit=500');
      assert.equal(r.status, 200, r.text);
      assert.ok(Array.isArray(r.body));
      assert.equal(r.body.length, 25 + 4 + 1);
      const got = new Set(uuids(r));
      for (const k of ['pdf', 'md', 'empty', 'pending', 'pub']) assert.ok(got.has(ids[k]!), k);
      assert.ok(!got.has(ids.priv!), "another tenant's private document leaked");
      for (const item of r.body) assert.deepEqual(Object.keys(item).sort(), LIST_FIELDS);
      const dates = r.body.map((x: { created_at: string }) => Date.parse(x.created_at));
      assert.deepEqual(
        dates,
        [...dates].sort((x, y) => y - x),
      );
      const pdf = r.body.find((x: { uuid: string }) => x.uuid === ids.pdf);
      assert.equal(pdf.status, 'indexed');
      assert.ok(pdf.chunks_count >= 1);
      assert.equal(pdf.collection_slug, b.slug);
      assert.equal(pdf.collection_name, b.name);
      assert.deepEqual(pdf.tags, ['Reports', 'Finance-2024']);
      assert.equal(r.headers.get('link'), null, 'no next page');
      assert.equal(r.headers.get('x-next-cursor'), null);
    });

    it('the other tenant sees only its own collections', async () => {
      const r = await list(other.key, '?limit=500');
      assert.deepEqual(new Set(uuids(r)), new Set([ids.pub, ids.priv]));
    });

    it('tag filter: case-insensitive substring of any tag', async () => {
      assert.deepEqual(new Set(uuids(await list(owner.key, '?tag=REPORT'))), new Set([ids.pdf, ids.pending]));
      assert.deepEqual(uuids(await list(owner.key, '?tag=finance-20')), [ids.pdf]);
      assert.deepEqual(uuids(await list(owner.key, '?tag=shared')), [ids.pub]);
      assert.deepEqual(uuids(await list(owner.key, '?tag=%25')), [], 'LIKE wildcards are literal');
      assert.deepEqual(uuids(await list(owner.key, '?tag=nothing-like-this')), []);
    });

    it('collection filter by slug, combinable with tag and status', async () => {
      assert.equal((await list(owner.key, `?collection=${a.slug}&limit=500`)).body.length, 25);
      assert.deepEqual(new Set(uuids(await list(owner.key, `?collection=${b.slug}`))), new Set([ids.pdf, ids.md, ids.empty, ids.pending]));
      assert.deepEqual(uuids(await list(owner.key, `?collection=${pub.slug}`)), [ids.pub]);
      assert.deepEqual(uuids(await list(owner.key, `?collection=${priv.slug}`)), [], 'invisible collection lists nothing');
      assert.deepEqual(uuids(await list(owner.key, `?collection=${b.slug}&tag=notes`)), [ids.md]);
      assert.deepEqual(uuids(await list(owner.key, `?collection=${b.slug}&status=failed`)), [ids.empty]);
    });

    it('status filter', async () => {
      assert.deepEqual(new Set(uuids(await list(owner.key, '?status=indexed'))), new Set([ids.pdf, ids.md, ids.pub]));
      assert.deepEqual(uuids(await list(owner.key, '?status=failed')), [ids.empty]);
      const pending = await list(owner.key, '?status=pending&limit=500');
      assert.equal(pending.body.length, 26);
      assert.ok(pending.body.every((x: { status: string }) => x.status === 'pending'));
      assertError(await list(owner.key, '?status=processing'), 400, 'VALIDATION_FAILED');
    });

    it('cursor pagination: walking pages of 10 returns every document once', async () => {
      const seen: string[] = [];
      let path = `/api/v1/documents/?collection=${a.slug}&limit=10`;
      let pages = 0;
      for (;;) {
        const r = await req('GET', path, { key: owner.key });
        assert.equal(r.status, 200, r.text);
        pages++;
        assert.ok(r.body.length <= 10);
        seen.push(...uuids(r));
        const link = r.headers.get('link');
        const cursor = r.headers.get('x-next-cursor');
        if (!link) {
          assert.equal(cursor, null);
          break;
        }
        const m = /^<([^>]+)>; rel="next"$/.exec(link);
        assert.ok(m, link);
        const next = new URL(m[1]!, d.url);
        assert.equal(next.searchParams.get('cursor'), cursor);
        assert.equal(next.searchParams.get('collection'), a.slug, 'filters are kept in the next link');
        assert.equal(next.searchParams.get('limit'), '10');
        path = next.pathname + next.search;
        assert.ok(pages < 10, 'pagination does not terminate');
      }
      assert.equal(pages, 3);
      assert.equal(seen.length, 25);
      assert.equal(new Set(seen).size, 25, 'no duplicates');
      const all = uuids(await list(owner.key, `?collection=${a.slug}&limit=500`));
      assert.deepEqual(seen, all, 'same order as one big page, nothing missed');
    });

    it('the cursor works with filters across collections too', async () => {
      const first = await list(owner.key, '?status=pending&limit=20');
      assert.equal(first.body.length, 20);
      const second = await list(owner.key, `?status=pending&limit=20&cursor=${first.headers.get('x-next-cursor')}`);
      assert.equal(second.body.length, 6);
      assert.equal(new Set([...uuids(first), ...uuids(second)]).size, 26);
    });

    it('400 VALIDATION_FAILED for an invalid cursor or limit', async () => {
      for (const q of [
        '?cursor=garbage',
        '?cursor=' + Buffer.from('not-a-date|x').toString('base64url'),
        '?cursor=' + Buffer.from(`${new Date().toISOString()}|1; drop table documents`).toString('base64url'),
        '?limit=0',
        '?limit=501',
        '?limit=abc',
      ]) {
        assertError(await list(owner.key, q), 400, 'VALIDATION_FAILED');
      }
    });

    it('a scoped key lists only its granted collections', async () => {
      const k = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'scoped', collections: [b.slug] } });
      assert.equal(k.status, 201, k.text);
      assert.deepEqual(new Set(uuids(await list(k.body.key, '?limit=500'))), new Set([ids.pdf, ids.md, ids.empty, ids.pending]));
    });
  });

  describe('detail', () => {
    it('indexed: list fields plus content_text, error_message "" and ordered chunks', async () => {
      const r = await req('GET', `/api/v1/documents/${ids.pdf}/`, { key: owner.key });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), DETAIL_FIELDS);
      assert.equal(r.body.uuid, ids.pdf);
      assert.equal(r.body.status, 'indexed');
      assert.equal(r.body.error_message, '');
      assert.ok(r.body.content_text.includes('quillfeather'));
      assert.equal(r.body.chunks.length, r.body.chunks_count);
      assert.ok(r.body.chunks.length >= 1);
      r.body.chunks.forEach((c: Record<string, unknown>, i: number) => {
        assert.deepEqual(Object.keys(c).sort(), ['chunk_index', 'content', 'embedding_model', 'id', 'page']);
        assert.equal(c.chunk_index, i);
        assert.match(String(c.id), /^[0-9a-f-]{36}$/);
        assert.equal(c.embedding_model, d.deps.embedder.model);
        assert.equal(typeof c.page, 'number');
      });
    });

    it('a multi-chunk document lists its chunks in chunk_index order', async () => {
      const long = Array.from({ length: 60 }, (_, i) =>
        `Paragraph ${i} talks about subject ${i} at some length, with enough words to fill space in the chunk. `.repeat(3),
      ).join('\n\n');
      const t = await req('POST', `/api/v1/collections/${b.uuid}/documents/`, {
        key: owner.key,
        json: { source_type: 'text', content: long },
      });
      assert.equal(t.status, 201, t.text);
      await runJob(t.body.uuid);
      const r = await req('GET', `/api/v1/documents/${t.body.uuid}/`, { key: owner.key });
      assert.ok(r.body.chunks.length > 3, `${r.body.chunks.length} chunks`);
      assert.deepEqual(
        r.body.chunks.map((c: { chunk_index: number }) => c.chunk_index),
        r.body.chunks.map((_: unknown, i: number) => i),
      );
      assert.equal(r.body.chunks[0].page, null);
    });

    it('failed: error_message set, no chunks; pending: empty text and chunks', async () => {
      const f = await req('GET', `/api/v1/documents/${ids.empty}/`, { key: owner.key });
      assert.equal(f.body.status, 'failed');
      assert.ok(f.body.error_message.length > 0);
      assert.deepEqual(f.body.chunks, []);
      const p = await req('GET', `/api/v1/documents/${ids.pending}/`, { key: owner.key });
      assert.equal(p.body.status, 'pending');
      assert.equal(p.body.error_message, '');
      assert.equal(p.body.content_text, '');
      assert.deepEqual(p.body.chunks, []);
      assert.equal(p.body.chunks_count, 0);
    });

    it('a subscriber can read a document of a public collection', async () => {
      const r = await req('GET', `/api/v1/documents/${ids.pub}/`, { key: owner.key });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.collection_slug, pub.slug);
    });

    it('404 DOCUMENT_NOT_FOUND for other tenants, malformed and unknown ids', async () => {
      assertError(await req('GET', `/api/v1/documents/${ids.priv}/`, { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
      assertError(await req('GET', `/api/v1/documents/${ids.pdf}/`, { key: other.key }), 404, 'DOCUMENT_NOT_FOUND');
      for (const bad of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', "1'or'1'='1", ids.pdf!.toUpperCase() + 'x']) {
        assertError(await req('GET', `/api/v1/documents/${encodeURIComponent(bad)}/`, { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
      }
    });

    it('after unsubscribing, the public document is gone for the former subscriber', async () => {
      assert.equal((await req('DELETE', `/api/v1/collections/${pub.slug}/subscribe/`, { key: owner.key })).status, 200);
      assertError(await req('GET', `/api/v1/documents/${ids.pub}/`, { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
      assert.ok(!uuids(await list(owner.key, '?limit=500')).includes(ids.pub!));
    });
  });
});
