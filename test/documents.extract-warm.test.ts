// A job worker starts its extraction threads when it starts (ExtractionPool.warm), so the first
// documents do not wait the ~0.7 s a thread takes to load pdf.js and officeparser. An API-only
// daemon extracts nothing and starts none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { until } from './helpers/chaos.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';

describe('documents: extraction threads start with the job worker', () => {
  let ollama: FakeOllama;
  let api: TestDaemon;
  let worker: TestDaemon | undefined;
  let tenant: Tenant;

  before(async () => {
    ollama = await startFakeOllama();
    const env = { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, WORKER_CONCURRENCY: '2' };
    api = await startTestDaemon({ label: 'extract_warm', api: true, worker: false, env });
    tenant = await createTenant(api, 'warm');
    worker = await startTestDaemon({ db: api.db, api: false, worker: true, env: { ...env, DATA_DIR: api.dataDir } });
  });

  after(async () => {
    await worker?.stop();
    await api?.stop();
    await ollama?.close();
  });

  it('the worker has one thread per concurrent job before any document, and the first documents use them', async () => {
    const pool = worker!.deps.extraction;
    await until(() => (pool.stats().threads === 2 ? true : undefined), 30_000, 'two extraction threads');
    assert.equal(pool.stats().spawned, 2);
    const req = http(api.url);
    const coll = (await makeCollection(req, tenant.key, 'Warm')).uuid;
    const form = new FormData();
    for (const i of [1, 2, 3])
      form.append('files', new Blob([`Warm note ${i} about copper kettles.`], { type: 'text/plain' }), `n${i}.txt`);
    const r = await req('POST', `/api/v1/collections/${coll}/documents/`, { key: tenant.key, body: form });
    assert.equal(r.status, 201, r.text);
    const ids = r.body.uploaded.map((u: { uuid: string }) => u.uuid);
    ids.push((await addText(req, tenant.key, coll, 'inline', 'Inline text needs no extraction thread.')).uuid);
    const settled = await waitSettled(req, tenant.key, ids);
    assert.deepEqual(
      settled.map((d) => d.status),
      ['indexed', 'indexed', 'indexed', 'indexed'],
    );
    assert.equal(pool.stats().spawned, 2, 'no thread started for the documents: they ran on the warm ones');
  });

  it('an API-only daemon starts no extraction thread', () => {
    assert.deepEqual(
      { threads: api.deps.extraction.stats().threads, spawned: api.deps.extraction.stats().spawned },
      { threads: 0, spawned: 0 },
    );
  });
});
