// Upgrading a database written by the schema before migration 080 (an indexed document's text kept
// whole in `documents.content_text` beside its chunks): the rows stay readable as they are (the
// copy in document_texts since migration 118), and a reprocess stores the text once, in the chunks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { toSql } from 'pgvector';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { fakeEmbedding, startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { insertTenant } from './helpers/old-schema.js';

const DIM = 16;
const MODEL = 'nomic-embed-text';
const TEXT = 'Legacy text about the old lighthouse keeper and his logbook.';

describe('upgrading to the text stored once (migration 080)', () => {
  let db: TestDatabase;
  let sql: Sql;
  let ollama: FakeOllama;
  let d: TestDaemon;
  let key: string;
  let otherKey: string;
  let docId: string;

  before(async () => {
    db = await createTestDatabase('upgrade_text', { empty: true });
    sql = createSql(db.url, { max: 2 });
    const applied = await migrate(sql, () => {}, { upTo: 79 });
    assert.ok(applied.includes(22) && applied.every((v) => v < 80), `applied ${applied.join(',')}`);
    await sql`insert into instance_settings (key, value) values ('embedding_model', ${sql.json({ model: MODEL, dimension: DIM })})`;
    const tenant = (label: string) => insertTenant(sql, label);
    const owner = await tenant('upt-owner');
    key = owner.key;
    otherKey = (await tenant('upt-other')).key;
    // As the previous processing job left an indexed text document: its text in the row and in its chunk.
    await sql.begin(async (tx) => {
      const [doc] = await tx<{ id: string }[]>`
        insert into documents (collection_id, title, source_type, status, chunks_count, indexed_at, content_text)
        values (${owner.collection}, 'Legacy', 'text', 'indexed', 1, now(), ${TEXT}) returning id`;
      docId = doc!.id;
      await tx`
        insert into chunks (document_id, collection_id, generation, chunk_index, content, token_count, embedding, embedding_model, tsv)
        values (${docId}, ${owner.collection}, 1, 0, ${TEXT}, 12, ${toSql(fakeEmbedding(TEXT, DIM))}::halfvec, ${MODEL},
                to_tsvector('english', 'Legacy ' || ${TEXT}))`;
    });
    await migrate(sql);
    await migrateWorkerSchema(db.url, createLogger('silent'));
    ollama = await startFakeOllama({ dimension: DIM });
    d = await startTestDaemon({ db, env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: MODEL } });
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
    await sql?.end();
    await db?.drop();
  });

  const row = async () =>
    (
      await sql<{ copy: string; text_joins: number[] | null; generation: number }[]>`
      select coalesce((select t.content from document_texts t where t.document_id = d.id), '') as copy, text_joins, generation
        from documents d where id = ${docId}`
    )[0]!;

  it('serves a document written before the upgrade as it was, and only to its organization', async () => {
    assert.deepEqual({ ...(await row()), generation: 1 }, { copy: TEXT, text_joins: null, generation: 1 });
    const g = await http(d.url)('GET', `/api/v1/documents/${docId}/`, { key });
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.content_text, TEXT);
    const other = await http(d.url)('GET', `/api/v1/documents/${docId}/`, { key: otherKey });
    assert.equal(other.status, 404);
  });

  it('a reprocess of the old row indexes it again and keeps its text once, in the chunk', async () => {
    const r = await http(d.url)('POST', `/api/v1/documents/${docId}/reprocess/`, { key });
    assert.equal(r.status, 200, r.text);
    const pending = await row();
    // A pending document's text waits in document_texts since migration 110.
    const [waiting] = await sql<{ content: string }[]>`select content from document_texts where document_id = ${docId}`;
    assert.equal(waiting?.content, TEXT);
    await processDocumentTask(d.deps)({ documentId: docId, generation: pending.generation }, {
      job: { attempts: 1, max_attempts: 5 },
    } as unknown as JobHelpers);
    assert.deepEqual(await row(), { copy: '', text_joins: [], generation: pending.generation });
    const g = await http(d.url)('GET', `/api/v1/documents/${docId}/`, { key });
    assert.equal(g.body.status, 'indexed');
    assert.equal(g.body.content_text, TEXT);
  });
});
