import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createEmbeddingProvider } from '../daemon/src/embeddings/index.js';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { reembedAll } from '../daemon/src/documents/reembed.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

interface Row {
  generation: number;
  status: string;
  chunks_count: number;
  error_message: string;
  attempts: number;
  indexed_at: Date | null;
  updated_at: Date;
  content_text: string;
}

// "Back to pending" is one operation whoever asks for it (replace, reprocess, reembed): the same
// columns reset, the same clock. No background worker: the processing task is run by hand.
describe('reembed sends documents back to pending like reprocess does', () => {
  let d: TestDaemon;
  let ollama: FakeOllama;
  let owner: Tenant;
  let req: ReturnType<typeof http>;
  // A test clock a day behind real time: a row stamped by the database's now() would not match it.
  let nowMs = Date.now() - 86_400_000;
  const clock = { now: () => new Date(nowMs) };

  before(async () => {
    ollama = await startFakeOllama({ dimension: 16 });
    d = await startTestDaemon({
      label: 'doc_reembed',
      clock,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'model-a' },
    });
    owner = await createTenant(d, 'reembed-owner');
    req = http(d.url);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  const runJob = (id: string, generation: number) =>
    processDocumentTask(d.deps)({ documentId: id, generation }, { job: { attempts: 1, max_attempts: 5 } } as unknown as JobHelpers);
  const row = async (id: string) =>
    (
      await d.deps.sql<Row[]>`
        select generation, status, chunks_count, error_message, attempts, indexed_at, updated_at,
               -- A pending text document's text waits in document_texts (migrations 110, 118).
               coalesce((select t.content from document_texts t where t.document_id = d.id), '') as content_text
          from documents d where id = ${id}`
    )[0]!;
  const queued = async (id: string) =>
    (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`process:${id}`}`)[0]!.n;

  async function indexedText(content: string): Promise<string> {
    const c = await req('POST', '/api/v1/collections/', { key: owner.key, json: { name: `Reembed ${content.length}` } });
    assert.equal(c.status, 201, c.text);
    const up = await req('POST', `/api/v1/collections/${c.body.uuid}/documents/`, {
      key: owner.key,
      json: { source_type: 'text', content },
    });
    assert.equal(up.status, 201, up.text);
    await runJob(up.body.uuid, 1);
    const r = await row(up.body.uuid);
    assert.equal(r.status, 'indexed');
    assert.ok(r.indexed_at, 'indexed_at set once indexed');
    return up.body.uuid;
  }

  it('reembed clears indexed_at and stamps updated_at with the service clock, as reprocess does', async () => {
    const viaReprocess = await indexedText('reprocessed text about lighthouses');
    const viaReembed = await indexedText('reembedded text about lighthouses and harbours');
    const deleted = await indexedText('deleted before the switch, about tides and harbours');
    const del = await req('DELETE', `/api/v1/documents/${deleted}/`, { key: owner.key });
    assert.equal(del.status, 204, del.text);
    const deletedBefore = await row(deleted);

    nowMs += 3_600_000;
    const r = await req('POST', `/api/v1/documents/${viaReprocess}/reprocess/`, { key: owner.key });
    assert.equal(r.status, 200, r.text);
    const reprocessed = await row(viaReprocess);

    // reembed restarts every live document: the reprocessed one (already pending) and the indexed one.
    nowMs += 3_600_000;
    const embedder = createEmbeddingProvider({ provider: 'ollama', ollamaHost: ollama.url, ollamaModel: 'model-b' });
    try {
      const out = await reembedAll(d.deps, embedder);
      assert.equal(out.documents, 2, 'the live documents, not the deleted one');
      assert.equal(out.model, 'model-b');
    } finally {
      await embedder.close();
    }
    const reembedded = await row(viaReembed);

    for (const [what, x] of [
      ['reprocess', reprocessed],
      ['reembed', reembedded],
    ] as const) {
      assert.equal(x.generation, 2, what);
      assert.equal(x.status, 'pending', what);
      assert.equal(x.chunks_count, 0, what);
      assert.equal(x.error_message, '', what);
      assert.equal(x.attempts, 0, what);
      assert.equal(x.indexed_at, null, `${what} leaves no stale indexed_at on a pending document`);
    }
    assert.equal(reprocessed.updated_at.getTime(), nowMs - 3_600_000, 'reprocess stamps the service clock');
    assert.equal(reembedded.updated_at.getTime(), nowMs, 'reembed stamps the service clock');
    // Text documents keep their text: it is what they are processed from.
    assert.equal(reembedded.content_text, 'reembedded text about lighthouses and harbours');
    assert.equal(await queued(viaReembed), 1, 'processing queued once');
    assert.equal((await row(viaReprocess)).generation, 3, 'a pending document is restarted again under a new generation');
    assert.equal(await queued(viaReprocess), 1, 'still one job per document (same job key)');
    assert.deepEqual(await row(deleted), deletedBefore, 'deleted documents are left alone');
  });
});
