import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama } from './helpers/fake-ollama-server.js';
import { createEmbeddingProvider } from '../daemon/src/embeddings/index.js';
import { EmbeddingModelMismatchError } from '../daemon/src/indexing/embedding-model.js';
import { reembedAll } from '../daemon/src/documents/reembed.js';
import { createTenant, http, startTestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

async function waitIndexed(url: string, key: string, id: string): Promise<any> {
  const req = http(url);
  for (let i = 0; i < 300; i++) {
    const r = await req('GET', `/api/v1/documents/${id}/`, { key });
    if (r.body.status !== 'pending') return r.body;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('document never left pending');
}

describe('switching embedding models', () => {
  let db: TestDatabase;
  let ollama: Awaited<ReturnType<typeof startFakeOllama>>;
  before(async () => {
    db = await createTestDatabase('modelswitch');
    ollama = await startFakeOllama({ dimension: 32 });
  });
  after(async () => {
    await ollama?.close();
    await db?.drop();
  });

  it('refuses to start with another model, and reembed switches every document', async () => {
    const envA = { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'model-a' };
    const a = await startTestDaemon({ db, worker: true, env: envA });
    const t = await createTenant(a);
    const col = (await http(a.url)('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Switch' } })).body;
    const up = await http(a.url)('POST', `/api/v1/collections/${col.uuid}/documents/`, {
      key: t.key,
      json: { source_type: 'text', content: 'vectors from model a' },
    });
    const doc = await waitIndexed(a.url, t.key, up.body.uuid);
    assert.equal(doc.status, 'indexed');
    assert.equal(doc.chunks[0].embedding_model, 'model-a');
    const idx = await a.deps.sql`select 1 from pg_indexes where indexname = 'chunks_embedding_hnsw_32'`;
    assert.equal(idx.length, 1, 'HNSW index created for the model dimension');
    await a.close();

    const envB = { ...envA, OLLAMA_MODEL: 'model-b' };
    await assert.rejects(
      startTestDaemon({ db, env: envB }),
      (err: Error) => err instanceof EmbeddingModelMismatchError && /reembed/.test(err.message),
    );

    const probe = await startTestDaemon({ db, env: envA, api: false });
    const embedder = createEmbeddingProvider({ provider: 'ollama', ollamaHost: ollama.url, ollamaModel: 'model-b' });
    const r = await reembedAll(probe.deps, embedder);
    await embedder.close();
    await probe.close();
    assert.equal(r.documents, 1);
    assert.equal(r.model, 'model-b');

    const b = await startTestDaemon({ db, worker: true, env: envB });
    const again = await waitIndexed(b.url, t.key, up.body.uuid);
    assert.equal(again.status, 'indexed');
    assert.equal(again.chunks[0].embedding_model, 'model-b');
    const models = await b.deps.sql`select distinct embedding_model from chunks`;
    assert.deepEqual(
      models.map((m) => m.embedding_model),
      ['model-b'],
    );
    await b.close();
  });
});
