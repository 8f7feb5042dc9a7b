import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { BAD_FILES, samplePath } from './fixtures/samples.js';
import { UPLOAD_FIELDS } from './helpers/document-fields.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startWebhookReceiver, subscribeReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

interface Coll {
  uuid: string;
  slug: string;
  name: string;
}

// No background worker: each test runs the real processing task itself, for a chosen generation, so
// stale jobs can be replayed on purpose. The fake Ollama answers after a delay, which leaves time to
// replace a document while its job is mid-flight.
describe('replace, reprocess and delete', () => {
  let d: TestDaemon;
  let ollama: FakeOllama;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: Coll;
  let readKey: string;
  let n = 0;
  let rx: WebhookReceiver;

  before(async () => {
    ollama = await startFakeOllama({ delayMs: 300 });
    d = await startTestDaemon({
      label: 'doc_replace',
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, ALLOW_PRIVATE_URLS: 'true' },
    });
    owner = await createTenant(d, 'repl-owner');
    other = await createTenant(d, 'repl-other');
    req = http(d.url);
    // Events are stored for an organization with an active webhook (the only reader of them).
    rx = await startWebhookReceiver();
    await subscribeReceiver(req, owner.key, rx);
    coll = await createCollection(owner.key);
    const k = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'reader', collections: [coll.slug] } });
    assert.equal(k.status, 201, k.text);
    readKey = k.body.key;
  });
  after(async () => {
    await d?.close();
    await rx?.close();
    await ollama?.close();
  });

  const runJob = (id: string, generation: number) =>
    processDocumentTask(d.deps)({ documentId: id, generation }, { job: { attempts: 1, max_attempts: 5 } } as unknown as JobHelpers);
  async function createCollection(key: string, isPublic = false): Promise<Coll> {
    const r = await req('POST', '/api/v1/collections/', { key, json: { name: `Replace ${++n}`, is_public: isPublic } });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  async function form(file: string | null, fields: Record<string, string> = {}) {
    const f = new FormData();
    if (file) f.append('file', new Blob([await readFile(samplePath(file))]), file);
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    return f;
  }
  async function indexedDoc(
    file = 'sample.txt',
    fields: Record<string, string> = { title: 'Keep me', tags: 'k1, k2' },
    c = coll,
    key = owner.key,
  ) {
    const r = await req('POST', `/api/v1/collections/${c.uuid}/documents/`, { key, body: await form(file, fields) });
    assert.equal(r.status, 201, r.text);
    await runJob(r.body.uuid, 1);
    const g = await detail(r.body.uuid);
    assert.equal(g.body.status, 'indexed', g.body.error_message);
    return g.body as { uuid: string; chunks_count: number; title: string; tags: string[] };
  }
  const replace = async (id: string, file: string | null, fields: Record<string, string> = {}, key = owner.key) =>
    req('POST', `/api/v1/documents/${id}/replace/`, { key, body: await form(file, fields) });
  const detail = (id: string, key = owner.key) => req('GET', `/api/v1/documents/${id}/`, { key });
  const row = async (id: string) =>
    (
      await d.deps.sql<{ generation: number; status: string; chunks_count: number; blob_key: string; deleted_at: Date | null }[]>`
      select generation, status, chunks_count, blob_key, deleted_at from documents where id = ${id}`
    )[0]!;
  const chunkCount = async (id: string) =>
    (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from chunks where document_id = ${id}`)[0]!.n;
  const eventTypes = async (id: string) =>
    (await d.deps.sql<{ type: string }[]>`select type from events where payload->'data'->>'uuid' = ${id} order by created_at`).map(
      (e) => e.type,
    );
  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
  }

  describe('replace', () => {
    it('keeps the uuid, title and tags; status pending; old chunks gone at once; the new file is indexed', async () => {
      const doc = await indexedDoc();
      const oldBlob = (await row(doc.uuid)).blob_key;
      const r = await replace(doc.uuid, 'sample.md');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), UPLOAD_FIELDS);
      assert.equal(r.body.uuid, doc.uuid);
      assert.equal(r.body.status, 'pending');
      assert.equal(r.body.title, 'Keep me');
      assert.deepEqual(r.body.tags, ['k1', 'k2']);
      assert.equal(r.body.original_filename, 'sample.md');
      assert.equal(r.body.source_type, 'md');
      assert.equal(r.body.file_size, (await stat(samplePath('sample.md'))).size);

      assert.equal(await chunkCount(doc.uuid), 0, 'old chunks leave search immediately');
      const g = await detail(doc.uuid);
      assert.equal(g.body.chunks_count, 0);
      assert.deepEqual(g.body.chunks, []);
      assert.equal(g.body.content_text, '');
      const now = await row(doc.uuid);
      assert.equal(now.generation, 2);
      assert.notEqual(now.blob_key, oldBlob, 'the new file is a new blob');
      const orphan = await d.deps.sql`select 1 from orphan_blobs where blob_key = ${oldBlob}`;
      assert.equal(orphan.length, 1, 'the old blob is queued for the 7-day purge');

      await runJob(doc.uuid, 2);
      const done = await detail(doc.uuid);
      assert.equal(done.body.status, 'indexed');
      assert.ok(done.body.content_text.includes('kestrelmarble'));
      assert.ok(!done.body.content_text.includes('lilacorbit'), 'nothing of the old file remains');
      assert.ok(done.body.chunks.every((c: { content: string }) => !c.content.includes('lilacorbit')));
      assert.equal(done.body.chunks.length, done.body.chunks_count);
      assert.deepEqual(await eventTypes(doc.uuid), ['document.indexed', 'document.indexed']);
    });

    it('title and tags are replaced when given (empty tags clear them)', async () => {
      const doc = await indexedDoc();
      const r = await replace(doc.uuid, 'sample.csv', { title: 'New title', tags: ' x ,, y ' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.title, 'New title');
      assert.deepEqual(r.body.tags, ['x', 'y']);
      const r2 = await replace(doc.uuid, 'sample.csv', { tags: '' });
      assert.equal(r2.body.title, 'New title');
      assert.deepEqual(r2.body.tags, []);
    });

    it('a stale job for the old generation changes nothing after a replace', async () => {
      const doc = await indexedDoc();
      assert.equal((await replace(doc.uuid, 'sample.md')).status, 200);
      const events = await eventTypes(doc.uuid);
      await runJob(doc.uuid, 1);
      const r = await row(doc.uuid);
      assert.equal(r.status, 'pending');
      assert.equal(r.generation, 2);
      assert.equal(await chunkCount(doc.uuid), 0);
      assert.deepEqual(await eventTypes(doc.uuid), events, 'no event from the stale job');

      // And once the new file is indexed, replaying the old job again still changes nothing.
      await runJob(doc.uuid, 2);
      const before = await detail(doc.uuid);
      await runJob(doc.uuid, 1);
      const afterStale = await detail(doc.uuid);
      assert.deepEqual(afterStale.body, before.body);
    });

    it('a job in flight when the replace lands cannot overwrite the new file', async () => {
      const r0 = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: owner.key, body: await form('sample.txt') });
      const id = r0.body.uuid as string;
      const requestsBefore = ollama.requests;
      const inflight = runJob(id, 1); // blocks ~300 ms inside the embedding call
      while (ollama.requests === requestsBefore) await new Promise((r) => setTimeout(r, 10));
      assert.equal((await replace(id, 'sample.md')).status, 200);
      await inflight;
      assert.equal((await row(id)).status, 'pending');
      assert.equal(await chunkCount(id), 0, 'the old job wrote no chunks');
      assert.deepEqual(await eventTypes(id), []);
      await runJob(id, 2);
      const g = await detail(id);
      assert.equal(g.body.status, 'indexed');
      assert.ok(g.body.content_text.includes('kestrelmarble') && !g.body.content_text.includes('lilacorbit'));
    });

    it('400 NO_FILE_PROVIDED, UNSUPPORTED_FILE_TYPE and INVALID_FILE_CONTENT leave the document untouched', async () => {
      const doc = await indexedDoc();
      const before = await row(doc.uuid);
      assertError(await replace(doc.uuid, null, { title: 'no file' }), 400, 'NO_FILE_PROVIDED');
      assertError(await replace(doc.uuid, BAD_FILES.imagePng), 400, 'UNSUPPORTED_FILE_TYPE');
      assertError(await replace(doc.uuid, BAD_FILES.fakePdf), 400, 'INVALID_FILE_CONTENT');
      assert.deepEqual(await row(doc.uuid), before);
      assert.equal(await chunkCount(doc.uuid), doc.chunks_count);
      assert.equal((await detail(doc.uuid)).body.title, 'Keep me');
      // The rejected uploads left no blob behind: only the document's own file is in its collection folder.
      const blobs = await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where collection_id = ${coll.uuid}`;
      const files = await readdir(path.join(d.dataDir, 'blobs', 'docs', coll.uuid));
      const known = new Set(blobs.map((b) => path.basename(b.blob_key)));
      const orphans = new Set(
        (await d.deps.sql<{ blob_key: string }[]>`select blob_key from orphan_blobs`).map((o) => path.basename(o.blob_key)),
      );
      assert.deepEqual(
        files.filter((f) => !known.has(f) && !orphans.has(f)),
        [],
      );
    });

    it("400 VALIDATION_FAILED for upload's metadata limits (a 501-character title, 51 tags, a 101-character tag)", async () => {
      const doc = await indexedDoc();
      const before = await row(doc.uuid);
      const tooLongTitle = await replace(doc.uuid, 'sample.md', { title: 't'.repeat(501) });
      assertError(tooLongTitle, 400, 'VALIDATION_FAILED');
      assert.ok(tooLongTitle.body.fields?.title, tooLongTitle.text);
      const tooManyTags = await replace(doc.uuid, 'sample.md', { tags: Array.from({ length: 51 }, (_, i) => `t${i}`).join(',') });
      assertError(tooManyTags, 400, 'VALIDATION_FAILED');
      assert.ok(tooManyTags.body.fields?.tags, tooManyTags.text);
      assertError(await replace(doc.uuid, 'sample.md', { tags: 'x'.repeat(101) }), 400, 'VALIDATION_FAILED');
      assert.deepEqual(await row(doc.uuid), before, 'the document is untouched');
      assert.equal((await detail(doc.uuid)).body.title, 'Keep me');
      // The limits themselves are accepted: a 500-character title and 50 tags.
      const atLimit = await replace(doc.uuid, 'sample.md', {
        title: 't'.repeat(500),
        tags: Array.from({ length: 50 }, (_, i) => `t${i}`).join(','),
      });
      assert.equal(atLimit.status, 200, atLimit.text);
      assert.equal(atLimit.body.title.length, 500);
      assert.equal(atLimit.body.tags.length, 50);
    });

    it('403 WRITE_ACCESS_REQUIRED for a read-scoped key and a subscriber; 404 for another tenant', async () => {
      const doc = await indexedDoc();
      assertError(await replace(doc.uuid, 'sample.md', {}, readKey), 403, 'WRITE_ACCESS_REQUIRED');
      assertError(await replace(doc.uuid, 'sample.md', {}, other.key), 404, 'DOCUMENT_NOT_FOUND');
      assertError(await replace('not-a-uuid', 'sample.md'), 404, 'DOCUMENT_NOT_FOUND');
      const pub = await createCollection(owner.key, true);
      assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: other.key })).status, 200);
      const shared = await indexedDoc('sample.txt', {}, pub);
      assertError(await replace(shared.uuid, 'sample.md', {}, other.key), 403, 'WRITE_ACCESS_REQUIRED');
      assert.equal((await row(doc.uuid)).generation, 1);
      assert.equal((await row(shared.uuid)).generation, 1);
    });
  });

  describe('reprocess', () => {
    it('200 upload shape, pending, chunks gone; processing again indexes it', async () => {
      const doc = await indexedDoc();
      const r = await req('POST', `/api/v1/documents/${doc.uuid}/reprocess/`, { key: owner.key });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), UPLOAD_FIELDS);
      assert.equal(r.body.status, 'pending');
      assert.equal(r.body.title, 'Keep me');
      assert.equal(await chunkCount(doc.uuid), 0);
      assert.equal((await row(doc.uuid)).generation, 2);
      await runJob(doc.uuid, 1); // stale
      assert.equal((await row(doc.uuid)).status, 'pending');
      await runJob(doc.uuid, 2);
      const g = await detail(doc.uuid);
      assert.equal(g.body.status, 'indexed');
      assert.equal(g.body.chunks_count, doc.chunks_count);
      assert.ok(g.body.content_text.includes('lilacorbit'));
    });

    it('a failed document can be reprocessed; error_message is cleared while pending', async () => {
      const r0 = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: owner.key, body: await form(BAD_FILES.emptyTxt) });
      await runJob(r0.body.uuid, 1);
      assert.equal((await detail(r0.body.uuid)).body.status, 'failed');
      const r = await req('POST', `/api/v1/documents/${r0.body.uuid}/reprocess/`, { key: owner.key });
      assert.equal(r.status, 200, r.text);
      const g = await detail(r0.body.uuid);
      assert.equal(g.body.status, 'pending');
      assert.equal(g.body.error_message, '');
    });

    it('403 for read-scoped keys, 404 for other tenants', async () => {
      const doc = await indexedDoc();
      assertError(await req('POST', `/api/v1/documents/${doc.uuid}/reprocess/`, { key: readKey }), 403, 'WRITE_ACCESS_REQUIRED');
      assertError(await req('POST', `/api/v1/documents/${doc.uuid}/reprocess/`, { key: other.key }), 404, 'DOCUMENT_NOT_FOUND');
      assert.equal((await row(doc.uuid)).generation, 1);
    });
  });

  describe('delete', () => {
    it('204; gone from list and detail; chunks deleted; blob kept for the purge', async () => {
      const doc = await indexedDoc();
      const blob = (await row(doc.uuid)).blob_key;
      const r = await req('DELETE', `/api/v1/documents/${doc.uuid}/`, { key: owner.key });
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      assertError(await detail(doc.uuid), 404, 'DOCUMENT_NOT_FOUND');
      const list = await req('GET', '/api/v1/documents/?limit=500', { key: owner.key });
      assert.ok(!list.body.some((x: { uuid: string }) => x.uuid === doc.uuid));
      assert.equal(await chunkCount(doc.uuid), 0);
      assert.ok((await row(doc.uuid)).deleted_at);
      await stat(path.join(d.dataDir, 'blobs', blob)); // still there until the 7-day purge
      assertError(await req('DELETE', `/api/v1/documents/${doc.uuid}/`, { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
      assertError(await replace(doc.uuid, 'sample.md'), 404, 'DOCUMENT_NOT_FOUND');
      assertError(await req('POST', `/api/v1/documents/${doc.uuid}/reprocess/`, { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
    });

    it('a job for a deleted document does nothing', async () => {
      const r0 = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: owner.key, body: await form('sample.txt') });
      assert.equal((await req('DELETE', `/api/v1/documents/${r0.body.uuid}/`, { key: owner.key })).status, 204);
      await runJob(r0.body.uuid, 1);
      assert.equal(await chunkCount(r0.body.uuid), 0);
      assert.equal((await row(r0.body.uuid)).status, 'pending');
      assert.deepEqual(await eventTypes(r0.body.uuid), []);
    });

    it('403 for read-scoped keys and subscribers, 404 for other tenants', async () => {
      const doc = await indexedDoc();
      assertError(await req('DELETE', `/api/v1/documents/${doc.uuid}/`, { key: readKey }), 403, 'WRITE_ACCESS_REQUIRED');
      assertError(await req('DELETE', `/api/v1/documents/${doc.uuid}/`, { key: other.key }), 404, 'DOCUMENT_NOT_FOUND');
      assertError(await req('DELETE', '/api/v1/documents/not-a-uuid/', { key: owner.key }), 404, 'DOCUMENT_NOT_FOUND');
      const pub = await createCollection(owner.key, true);
      assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: other.key })).status, 200);
      const shared = await indexedDoc('sample.txt', {}, pub);
      assertError(await req('DELETE', `/api/v1/documents/${shared.uuid}/`, { key: other.key }), 403, 'WRITE_ACCESS_REQUIRED');
      assert.equal((await row(doc.uuid)).deleted_at, null);
      assert.equal((await row(shared.uuid)).deleted_at, null);
    });
  });
});
