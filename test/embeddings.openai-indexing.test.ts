import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EmbeddingModelMismatchError } from '../daemon/src/indexing/embedding-model.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon } from './helpers/daemon.js';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai-server.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const env = (fake: FakeOpenAI, extra: Record<string, string> = {}) => ({
  EMBEDDING_PROVIDER: 'openai',
  OPENAI_BASE_URL: fake.url,
  EMBEDDING_MODEL: 'text-embedding-3-small',
  EMBEDDING_DIMENSIONS: '32',
  ...extra,
});

describe('indexing with EMBEDDING_PROVIDER=openai', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test' });
  });
  after(() => fake?.close());

  it('indexes through the server, retrying 5xx, and searches with its vectors', async () => {
    const d = await startTestDaemon({ label: 'oai_index', worker: true, env: env(fake, { OPENAI_API_KEY: 'sk-test' }) });
    try {
      const req = http(d.url);
      const t = await createTenant(d);
      const col = await makeCollection(req, t.key, 'Remote');
      fake.failNext({ status: 503 });
      const doc = await addText(req, t.key, col.uuid, 'Lighthouses', 'The lighthouse keeper trimmed the lamp wick every evening.');
      const [settled] = await waitSettled(req, t.key, [doc.uuid]);
      assert.equal(settled.status, 'indexed', settled.error_message);
      assert.equal(settled.chunks[0].embedding_model, 'text-embedding-3-small');
      const [stored] = await d.deps.sql`select value from instance_settings where key = 'embedding_model'`;
      assert.deepEqual(stored!.value, { model: 'text-embedding-3-small', dimension: 32 });
      assert.equal((await d.deps.sql`select 1 from pg_indexes where indexname = 'chunks_embedding_hnsw_32'`).length, 1);
      assert.ok(fake.requests.some((r) => r.status === 503) && fake.requests.at(-1)!.status === 200);
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'lighthouse keeper lamp', mode: 'vector' } });
      assert.equal(r.status, 200);
      assert.equal(r.body.results[0]?.document_id, doc.uuid);
      assert.equal(fake.requests.at(-1)!.inputs[0], 'lighthouse keeper lamp', 'the query was embedded by the server');
    } finally {
      await d.close();
    }
  });

  it('fails the document at once with the provider’s message on 401 (no retries)', async () => {
    const d = await startTestDaemon({
      label: 'oai_401',
      worker: true,
      env: env(fake, { OPENAI_API_KEY: 'sk-wrong', PROCESS_MAX_ATTEMPTS: '5' }),
    });
    try {
      const req = http(d.url);
      const t = await createTenant(d);
      const col = await makeCollection(req, t.key, 'Remote');
      const before = fake.requests.length;
      const doc = await addText(req, t.key, col.uuid, 'Denied', 'This text never gets a vector.');
      const [settled] = await waitSettled(req, t.key, [doc.uuid]);
      assert.equal(settled.status, 'failed');
      assert.match(settled.error_message, /HTTP 401: Incorrect API key provided/);
      assert.equal(fake.requests.length - before, 1, 'one request: a permanent error is not retried');
      const [row] = await d.deps.sql`select attempts from documents where id = ${doc.uuid}`;
      assert.equal(row!.attempts, 1);
    } finally {
      await d.close();
    }
  });
});

describe('model guard with EMBEDDING_PROVIDER=openai', () => {
  let db: TestDatabase;
  let fake: FakeOpenAI;
  before(async () => {
    db = await createTestDatabase('oai_guard');
    fake = await startFakeOpenAI();
  });
  after(async () => {
    await fake?.close();
    await db?.drop();
  });

  it('refuses to start with another model or dimension; a server-side change fails the document', async () => {
    const a = await startTestDaemon({ db, worker: true, env: env(fake) });
    const t = await createTenant(a);
    const req = http(a.url);
    const col = await makeCollection(req, t.key, 'Guarded');
    const first = await addText(req, t.key, col.uuid, 'First', 'vectors of 32 dimensions');
    assert.equal((await waitSettled(req, t.key, [first.uuid]))[0].status, 'indexed');
    await a.close();

    const others: Record<string, string>[] = [
      { EMBEDDING_DIMENSIONS: '16' },
      { EMBEDDING_MODEL: 'text-embedding-ada-002', EMBEDDING_DIMENSIONS: '' },
    ];
    for (const other of others) {
      const cfg = Object.fromEntries(Object.entries(env(fake, other)).filter(([, v]) => v !== ''));
      await assert.rejects(
        startTestDaemon({ db, env: cfg }),
        (err: Error) => err instanceof EmbeddingModelMismatchError && /reembed/.test(err.message) && /32 dimensions/.test(err.message),
        JSON.stringify(other),
      );
    }

    // Without EMBEDDING_DIMENSIONS the length is only known from an answer: the same model name now
    // answering 96 dimensions starts, but its vectors are never written beside the 32-dimensional ones.
    const { EMBEDDING_DIMENSIONS: _, ...unsized } = env(fake, { PROCESS_MAX_ATTEMPTS: '1' });
    const b = await startTestDaemon({ db, worker: true, env: unsized });
    try {
      const second = await addText(http(b.url), t.key, col.uuid, 'Second', 'vectors of 96 dimensions');
      const [settled] = await waitSettled(http(b.url), t.key, [second.uuid]);
      assert.equal(settled.status, 'failed');
      assert.match(settled.error_message, /text-embedding-3-small\/96 does not match/);
      const dims = await b.deps.sql`select distinct vector_dims(embedding) as d from chunks`;
      assert.deepEqual(
        dims.map((r) => r.d),
        [32],
      );
    } finally {
      await b.close();
    }
  });
});
