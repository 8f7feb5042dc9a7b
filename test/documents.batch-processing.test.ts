// Small documents are indexed many per transaction (documents/batch-claim.ts). Per document the
// outcome must be what processing it alone gives: its own status, chunks, events and webhook, a
// failing document failing alone, each organization's events its own, and no job left behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { startWebhookReceiver, subscribeReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const PER_TENANT = 30;

describe('documents: small documents processed in batches', () => {
  let ollama: FakeOllama;
  let api: TestDaemon;
  let worker: TestDaemon | undefined;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let env: Record<string, string>;
  const rx: { a?: WebhookReceiver; b?: WebhookReceiver } = {};
  const ids = { a: [] as string[], b: [] as string[], broken: '' };

  async function upload(t: Tenant, collection: string, files: [name: string, body: string, type: string][]): Promise<string[]> {
    const form = new FormData();
    for (const [n, body, type] of files) form.append('files', new Blob([body], { type }), n);
    const r = await req('POST', `/api/v1/collections/${collection}/documents/`, { key: t.key, body: form });
    assert.equal(r.status, 201, r.text);
    const byName = new Map<string, string>(
      r.body.uploaded.map((u: { original_filename: string; uuid: string }) => [u.original_filename, u.uuid]),
    );
    assert.equal(byName.size, files.length, r.text);
    return files.map(([n]) => byName.get(n)!);
  }

  before(async () => {
    ollama = await startFakeOllama();
    env = { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, WORKER_CONCURRENCY: '1', ALLOW_PRIVATE_URLS: 'true' };
    api = await startTestDaemon({ label: 'batches', api: true, worker: false, env });
    a = await createTenant(api, 'batch-a');
    b = await createTenant(api, 'batch-b');
    req = http(api.url);
    // Events are stored for an organization with an active webhook (the only reader of them).
    rx.a = await startWebhookReceiver();
    rx.b = await startWebhookReceiver();
    await subscribeReceiver(req, a.key, rx.a);
    await subscribeReceiver(req, b.key, rx.b);
    const collA = (await makeCollection(req, a.key, 'Batch A')).uuid;
    const collB = (await makeCollection(req, b.key, 'Batch B')).uuid;
    const text = (who: string, i: number) => `Note ${i} of ${who}: the ${who}-${i} lantern is made of copper and glass.`;
    // Queued while no worker runs, so the worker finds a backlog to batch.
    ids.a = await upload(
      a,
      collA,
      Array.from({ length: PER_TENANT }, (_, i) => [`a-${i}.txt`, text('alpha', i), 'text/plain']),
    );
    ids.broken = (await upload(a, collA, [['broken.pdf', '%PDF-1.4\nnot really a pdf\n', 'application/pdf']]))[0]!;
    ids.b = await upload(
      b,
      collB,
      Array.from({ length: PER_TENANT }, (_, i) => [`b-${i}.txt`, text('beta', i), 'text/plain']),
    );
    worker = await startTestDaemon({ db: api.db, api: false, worker: true, env: { ...env, DATA_DIR: api.dataDir } });
    await waitSettled(req, a.key, [...ids.a, ids.broken], 120_000);
    await waitSettled(req, b.key, ids.b, 120_000);
  });
  after(async () => {
    await worker?.close();
    await api?.close();
    await rx.a?.close();
    await rx.b?.close();
    await ollama?.close();
  });

  it('indexes every document once, many per transaction', async () => {
    const sql = api.deps.sql;
    const rows = await sql<{ id: string; status: string; chunks_count: number; chunks: number; indexed_at: Date }[]>`
      select d.id, d.status, d.chunks_count, (select count(*)::int from chunks k where k.document_id = d.id) as chunks, d.indexed_at
        from documents d where d.id = any(${[...ids.a, ...ids.b]}::uuid[])`;
    assert.equal(rows.length, 2 * PER_TENANT);
    for (const r of rows) {
      assert.equal(r.status, 'indexed');
      assert.ok(r.chunks > 0);
      assert.equal(r.chunks_count, r.chunks, 'chunks_count matches the chunks written, none duplicated');
    }
    // One transaction stamps its documents with one time: far fewer than one per document.
    const stamps = new Set(rows.map((r) => r.indexed_at.getTime()));
    assert.ok(stamps.size <= (2 * PER_TENANT) / 4, `${stamps.size} write transactions for ${2 * PER_TENANT} documents`);
    const [left] = await sql<{ n: number }[]>`
      select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'process_document'`;
    assert.equal(left!.n, 0, 'no processing job left behind');
    const search = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'alpha-7 lantern', mode: 'text', limit: 3 } });
    assert.equal(search.status, 200, search.text);
    assert.ok(search.body.results.length > 0);
  });

  it('a document that cannot be extracted fails alone, with its own message and event', async () => {
    const sql = api.deps.sql;
    const [d] = await sql<{ status: string; error_message: string; chunks: number }[]>`
      select status, error_message, (select count(*)::int from chunks k where k.document_id = d.id) as chunks from documents d where id = ${ids.broken}`;
    assert.equal(d!.status, 'failed');
    assert.ok(d!.error_message.length > 0);
    assert.equal(d!.chunks, 0);
    const events = await sql<{ type: string; n: number }[]>`
      select type, count(*)::int as n from events where payload -> 'data' ->> 'uuid' = ${ids.broken} group by type`;
    assert.deepEqual([...events], [{ type: 'document.failed', n: 1 }]);
  });

  it("one event per document, in its own organization's log (batches mix organizations)", async () => {
    const sql = api.deps.sql;
    const rows = await sql<{ doc: string; org: string; type: string; n: number }[]>`
      select e.payload -> 'data' ->> 'uuid' as doc, e.organization_id as org, e.type, count(*)::int as n
        from events e where e.type like 'document.%' group by 1, 2, 3`;
    const byDoc = new Map(rows.map((r) => [r.doc, r]));
    for (const [t, list] of [
      [a, ids.a],
      [b, ids.b],
    ] as const) {
      for (const id of list) {
        const e = byDoc.get(id);
        assert.ok(e, `an event for ${id}`);
        assert.equal(e.type, 'document.indexed');
        assert.equal(e.n, 1);
        assert.equal(e.org, t.orgId, 'the event belongs to the document owner');
      }
    }
    // Each organization's webhook gets its own documents' events, once each.
    for (const [receiver, own] of [
      [rx.a!, [...ids.a, ids.broken]],
      [rx.b!, ids.b],
    ] as const) {
      await receiver.waitFor(() => receiver.accepted().length >= own.length, 30_000);
      assert.deepEqual(
        receiver
          .accepted()
          .map((r) => r.body.data.uuid)
          .sort(),
        [...own].sort(),
      );
    }
  });
});
