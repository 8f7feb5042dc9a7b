import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// An indexed document's text is kept once: when its chunks reproduce it exactly (always, for the
// chunker's own output), the documents row stores only how the chunks join, and every reader
// (the API, MCP, reprocess of a text document) rebuilds it from the chunks.

const sentence = (i: number) => `Sentence ${i} tells of harbour${i} lights and tidewater${i % 7} maps.`;
// Long enough for several chunks at CHUNK_TOKENS=40, with paragraph breaks between some sentences.
const LONG = Array.from({ length: 30 }, (_, i) => sentence(i) + (i % 6 === 5 ? '\n\n' : ' '))
  .join('')
  .trim();

describe('documents: the extracted text stored once', () => {
  let d: TestDaemon;
  let ollama: FakeOllama;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: string;

  before(async () => {
    ollama = await startFakeOllama();
    d = await startTestDaemon({
      label: 'stored_text',
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, CHUNK_TOKENS: '40' },
    });
    owner = await createTenant(d, 'text-owner');
    other = await createTenant(d, 'text-other');
    req = http(d.url);
    const c = await req('POST', '/api/v1/collections/', { key: owner.key, json: { name: 'Stored text' } });
    assert.equal(c.status, 201, c.text);
    coll = c.body.uuid;
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  const runJob = (id: string, generation: number) =>
    processDocumentTask(d.deps)({ documentId: id, generation }, { job: { attempts: 1, max_attempts: 5 } } as unknown as JobHelpers);
  const stored = async (id: string) =>
    (
      await d.deps.sql<{ waiting: string | null; chunks: number }[]>`
      select (select t.content from document_texts t where t.document_id = d.id) as waiting,
             (select count(*)::int from chunks where document_id = d.id) as chunks
        from documents d where id = ${id}`
    )[0]!;

  async function indexedText(content: string): Promise<string> {
    const up = await req('POST', `/api/v1/collections/${coll}/documents/`, { key: owner.key, json: { source_type: 'text', content } });
    assert.equal(up.status, 201, up.text);
    await runJob(up.body.uuid, 1);
    return up.body.uuid;
  }

  it('a one-chunk and a many-chunk document (overlapping chunks, blank lines): the row keeps no copy, the API returns the whole text', async () => {
    for (const content of ['  One short   text about lanterns.  ', LONG]) {
      const id = await indexedText(content);
      const g = await req('GET', `/api/v1/documents/${id}/`, { key: owner.key });
      assert.equal(g.status, 200, g.text);
      assert.equal(g.body.status, 'indexed');
      assert.equal(g.body.content_text, content.trim().replace(/ {2,}/g, ' '), 'the normalized text, exactly');
      const s = await stored(id);
      assert.equal(s.waiting, null, 'not stored beside the chunks');
      if (content === LONG) {
        assert.ok(s.chunks >= 3, `several chunks (${s.chunks})`);
        const chunks = g.body.chunks.map((c: { content: string }) => c.content);
        assert.ok(
          chunks.some((c: string, i: number) => i > 0 && LONG.indexOf(c) < LONG.indexOf(chunks[i - 1]) + chunks[i - 1].length),
          'consecutive chunks overlap',
        );
      }
    }
  });

  it('reprocess and replace of a text document start from the full text again', async () => {
    const id = await indexedText(LONG);
    const r = await req('POST', `/api/v1/documents/${id}/reprocess/`, { key: owner.key });
    assert.equal(r.status, 200, r.text);
    const pending = await stored(id);
    assert.equal(pending.chunks, 0, 'the chunks left search');
    assert.equal(pending.waiting, LONG, 'the text went back to document_texts before its chunks went');
    await runJob(id, 2);
    const g = await req('GET', `/api/v1/documents/${id}/`, { key: owner.key });
    assert.equal(g.body.status, 'indexed');
    assert.equal(g.body.content_text, LONG);
    const hits = await req('POST', '/api/v1/search/', { key: owner.key, json: { query: 'harbour29', mode: 'text' } });
    assert.equal(hits.status, 200, hits.text);
    assert.ok(hits.body.results.some((x: { document_id: string }) => x.document_id === id));
  });

  it('uploaded text waits in document_texts, not in the documents row, and leaves it once indexed (migration 110)', async () => {
    const up = await req('POST', `/api/v1/collections/${coll}/documents/`, {
      key: owner.key,
      json: { source_type: 'text', content: LONG },
    });
    assert.equal(up.status, 201, up.text);
    const id = up.body.uuid;
    assert.deepEqual(await stored(id), { waiting: LONG, chunks: 0 });
    const g = await req('GET', `/api/v1/documents/${id}/`, { key: owner.key });
    assert.equal(g.body.status, 'pending');
    assert.equal(g.body.content_text, LONG, 'a pending document reads its uploaded text');
    await runJob(id, 1);
    const s = await stored(id);
    assert.equal(s.waiting, null);
    assert.ok(s.chunks >= 3);
    const after = await req('GET', `/api/v1/documents/${id}/`, { key: owner.key });
    assert.equal(after.body.content_text, LONG);
  });

  it('a failed text document keeps its text waiting, and a reprocess indexes it', async () => {
    const up = await req('POST', `/api/v1/collections/${coll}/documents/`, {
      key: owner.key,
      json: { source_type: 'text', content: 'Short text about a failing beacon.' },
    });
    assert.equal(up.status, 201, up.text);
    const id = up.body.uuid;
    // The processing outcome a permanent failure writes (process-document.ts markFailed).
    await d.deps.sql`update documents set status = 'failed', error_message = 'broken' where id = ${id}`;
    assert.equal((await stored(id)).waiting, 'Short text about a failing beacon.');
    const r = await req('POST', `/api/v1/documents/${id}/reprocess/`, { key: owner.key });
    assert.equal(r.status, 200, r.text);
    assert.equal((await stored(id)).waiting, 'Short text about a failing beacon.', 'kept, not duplicated');
    await runJob(id, 2);
    const g = await req('GET', `/api/v1/documents/${id}/`, { key: owner.key });
    assert.equal(g.body.status, 'indexed');
    assert.equal(g.body.content_text, 'Short text about a failing beacon.');
    assert.equal((await stored(id)).waiting, null);
  });

  it('another organization cannot read the text (404), and an unknown document is 404', async () => {
    const id = await indexedText('Private text about a secret lighthouse.');
    const g = await req('GET', `/api/v1/documents/${id}/`, { key: other.key });
    assert.equal(g.status, 404);
    assert.equal(g.body.code, 'DOCUMENT_NOT_FOUND');
    const none = await req('GET', '/api/v1/documents/00000000-0000-4000-8000-000000000000/', { key: owner.key });
    assert.equal(none.status, 404);
  });
});
