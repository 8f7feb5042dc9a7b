import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';

// Per-organization fairness of the processing queue, end to end: real uploads, real
// graphile-worker jobs, a real worker. The worker starts only after everything is queued, so the
// order in which it picks jobs is the queue's order alone, independent of machine speed.
const BACKLOG = 40;

describe('documents: processing queue fairness between organizations', () => {
  let ollama: FakeOllama;
  let api: TestDaemon;
  let worker: TestDaemon | undefined;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let env: Record<string, string>;

  before(async () => {
    ollama = await startFakeOllama();
    env = { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, WORKER_CONCURRENCY: '1' };
    api = await startTestDaemon({ label: 'fairness', api: true, worker: false, env });
    a = await createTenant(api, 'busy');
    b = await createTenant(api, 'quiet');
    req = http(api.url);
  });
  after(async () => {
    await worker?.close();
    await api?.close();
    await ollama?.close();
  });

  async function batch(t: Tenant, collection: string, names: string[]): Promise<string[]> {
    const form = new FormData();
    for (const n of names) form.append('files', new Blob([`Document ${n} of a tenant, about copper lanterns.`], { type: 'text/plain' }), n);
    const r = await req('POST', `/api/v1/collections/${collection}/documents/`, { key: t.key, body: form });
    assert.equal(r.status, 201, r.text);
    const byName = new Map<string, string>(
      r.body.uploaded.map((u: { original_filename: string; uuid: string }) => [u.original_filename, u.uuid]),
    );
    return names.map((n) => byName.get(n)!);
  }

  it('ranks each document of a batch upload after the ones already pending in its organization', async () => {
    const c = await createTenant(api, 'ranked');
    const coll = (await makeCollection(req, c.key, 'Ranked')).uuid;
    const first = await batch(c, coll, ['r-0.txt', 'r-1.txt', 'r-2.txt']);
    const second = await batch(c, coll, ['r-3.txt', 'r-4.txt']);
    const rows = await api.deps.sql<{ id: string; priority: number }[]>`
      select j.payload ->> 'documentId' as id, j.priority
        from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'process_document' and j.payload ->> 'documentId' in ${api.deps.sql([...first, ...second])}`;
    const rank = new Map(rows.map((r) => [r.id, r.priority]));
    assert.deepEqual(
      [...first, ...second].map((id) => rank.get(id)),
      [0, 1, 2, 3, 4],
    );
  });

  it("one organization's backlog does not starve another's single upload", async () => {
    const collA = (await makeCollection(req, a.key, 'Backlog')).uuid;
    const collB = (await makeCollection(req, b.key, 'Single')).uuid;
    // A queues 40 documents in two batches, then B queues one.
    const aIds = [
      ...(await batch(
        a,
        collA,
        Array.from({ length: BACKLOG / 2 }, (_, i) => `a-${String(i).padStart(2, '0')}.txt`),
      )),
      ...(await batch(
        a,
        collA,
        Array.from({ length: BACKLOG / 2 }, (_, i) => `a-${String(i + BACKLOG / 2).padStart(2, '0')}.txt`),
      )),
    ];
    const [bId] = await batch(b, collB, ['b.txt']);

    // Same database and blob directory: a separate worker process, as with `docsift-daemon worker`.
    worker = await startTestDaemon({ db: api.db, api: false, worker: true, env: { ...env, DATA_DIR: api.dataDir } });
    const [bDoc] = await waitSettled(req, b.key, [bId!]);
    assert.equal(bDoc.status, 'indexed', bDoc.error_message);
    const aDocs = await waitSettled(req, a.key, aIds);
    assert.ok(aDocs.every((d) => d.status === 'indexed'));

    const indexedAt = async (ids: string[]) =>
      (
        await api.deps.sql<{ id: string; indexed_at: Date }[]>`select id, indexed_at from documents where id in ${api.deps.sql(ids)}`
      ).reduce((m, r) => m.set(r.id, r.indexed_at.getTime()), new Map<string, number>());
    const aTimes = await indexedAt(aIds);
    const bTime = (await indexedAt([bId!])).get(bId!)!;
    const aBeforeB = aIds.filter((id) => aTimes.get(id)! < bTime).length;
    // B's job ranks with A's first: at most A's first document (queued earlier) runs before it.
    assert.ok(aBeforeB <= 1, `${aBeforeB} of A's ${BACKLOG} documents were indexed before B's one`);
    // Within one organization the order stays first come, first served.
    const order = aIds.map((id) => aTimes.get(id)!);
    for (let i = 1; i < order.length; i++) assert.ok(order[i]! >= order[i - 1]!, `A's document ${i} indexed before document ${i - 1}`);
  });
});
