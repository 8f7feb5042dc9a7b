// Upgrading a database written by the schema before migration 110 (a text document's uploaded text
// kept in `documents.content_text` while it waits for processing): the waiting and failed rows stay
// readable and are processed (their text in document_texts since migration 118), new uploads wait
// in document_texts, and the two
// indexes no plan used are gone. Events written as jsonb are read back the same as json (111).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { eventBody, getEvent } from '../daemon/src/webhooks/delivery.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { insertTenant } from './helpers/old-schema.js';

const MODEL = 'nomic-embed-text';
const PENDING = 'Legacy pending text about the quarry railway and its brakeman.';
const FAILED = 'Legacy failed text about the salt marsh ferry and its timetable.';

describe('upgrading to pending text in its own table and json event payloads (migrations 110, 111)', () => {
  let db: TestDatabase;
  let sql: Sql;
  let ollama: FakeOllama;
  let d: TestDaemon;
  let key: string;
  let otherKey: string;
  let collection: string;
  let pendingId: string;
  let failedId: string;
  let orgId: string;
  let eventId: string;
  const payload = { event: 'document.failed', timestamp: '2026-11-24T10:00:00.000Z', data: { uuid: 'x', error_message: 'broken' } };

  before(async () => {
    db = await createTestDatabase('upgrade_pending', { empty: true });
    sql = createSql(db.url, { max: 2 });
    const applied = await migrate(sql, () => {}, { upTo: 109 });
    assert.ok(applied.includes(85) && applied.every((v) => v < 110), `applied ${applied.join(',')}`);
    const tenant = (label: string) => insertTenant(sql, label);
    const owner = await tenant('upp-owner');
    orgId = owner.org;
    const [e] = await sql<{ id: string }[]>`
      insert into events (organization_id, type, payload) values (${orgId}, 'document.failed', ${sql.json(payload)}::jsonb) returning id`;
    eventId = e!.id;
    key = owner.key;
    collection = owner.collection;
    otherKey = (await tenant('upp-other')).key;
    // As the previous upload left a text document waiting for its job, and a failed one.
    const [p] = await sql<{ id: string }[]>`
      insert into documents (collection_id, title, source_type, tags, content_text) values (${collection}, 'Pending', 'text', '{Rail}', ${PENDING}) returning id`;
    pendingId = p!.id;
    const [f] = await sql<{ id: string }[]>`
      insert into documents (collection_id, title, source_type, status, error_message, content_text)
      values (${collection}, 'Failed', 'text', 'failed', 'broken', ${FAILED}) returning id`;
    failedId = f!.id;
    await migrate(sql);
    await migrateWorkerSchema(db.url, createLogger('silent'));
    ollama = await startFakeOllama({ dimension: 16 });
    d = await startTestDaemon({ db, env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: MODEL } });
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
    await sql?.end();
    await db?.drop();
  });

  const runJob = (id: string, generation: number) =>
    processDocumentTask(d.deps)({ documentId: id, generation }, { job: { attempts: 1, max_attempts: 5 } } as unknown as JobHelpers);
  const stored = async (id: string) =>
    (
      await sql<{ waiting: string | null; status: string; generation: number }[]>`
      select (select t.content from document_texts t where t.document_id = d.id) as waiting, status, generation
        from documents d where id = ${id}`
    )[0]!;

  it('leaves rows written before it as they were, readable only by their organization', async () => {
    assert.deepEqual(await stored(pendingId), { waiting: PENDING, status: 'pending', generation: 1 });
    const g = await http(d.url)('GET', `/api/v1/documents/${pendingId}/`, { key });
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.content_text, PENDING);
    assert.equal((await http(d.url)('GET', `/api/v1/documents/${pendingId}/`, { key: otherKey })).status, 404);
    const indexes = await sql<{ indexname: string }[]>`
      select indexname from pg_indexes where indexname in ('documents_tags_idx', 'events_org_idx')`;
    assert.deepEqual([...indexes], [], 'the indexes no query used are dropped');
  });

  it('indexes a document that waited in its row, and finds it by text and by tag (any case)', async () => {
    await runJob(pendingId, 1);
    const s = await stored(pendingId);
    assert.equal(s.status, 'indexed');
    assert.equal(s.waiting, null, 'kept once, in the chunks');
    const g = await http(d.url)('GET', `/api/v1/documents/${pendingId}/`, { key });
    assert.equal(g.body.content_text, PENDING);
    const hits = await http(d.url)('POST', '/api/v1/search/', { key, json: { query: 'brakeman', mode: 'text', tags: ['rail'] } });
    assert.equal(hits.status, 200, hits.text);
    assert.deepEqual(
      hits.body.results.map((r: { document_id: string }) => r.document_id),
      [pendingId],
    );
    const other = await http(d.url)('POST', '/api/v1/search/', { key: otherKey, json: { query: 'brakeman', mode: 'text' } });
    assert.deepEqual(other.body.results, []);
  });

  it('a reprocess of a failed row moves its text to document_texts and indexes it', async () => {
    const r = await http(d.url)('POST', `/api/v1/documents/${failedId}/reprocess/`, { key });
    assert.equal(r.status, 200, r.text);
    const pending = await stored(failedId);
    assert.deepEqual(pending, { waiting: FAILED, status: 'pending', generation: 2 });
    await runJob(failedId, 2);
    assert.deepEqual(await stored(failedId), { waiting: null, status: 'indexed', generation: 2 });
    const g = await http(d.url)('GET', `/api/v1/documents/${failedId}/`, { key });
    assert.equal(g.body.content_text, FAILED);
  });

  it('an event written as jsonb is read back whole, its payload now json, and sent unchanged', async () => {
    const [t] = await sql<{ type: string; uuid: string }[]>`
      select pg_typeof(payload)::text as type, payload -> 'data' ->> 'uuid' as uuid from events where id = ${eventId}`;
    assert.deepEqual({ ...t }, { type: 'json', uuid: 'x' });
    const ev = await getEvent(sql, orgId, eventId);
    assert.deepEqual(ev?.payload, payload);
    assert.equal(eventBody(ev!), JSON.stringify({ id: eventId, ...payload }));
    assert.equal(await getEvent(sql, orgId, '00000000-0000-4000-8000-000000000000'), undefined);
  });

  it('a new upload waits in document_texts, and the table is empty once everything is indexed', async () => {
    const up = await http(d.url)('POST', `/api/v1/collections/${collection}/documents/`, {
      key,
      json: { source_type: 'text', content: 'New text about the lock keeper.' },
    });
    assert.equal(up.status, 201, up.text);
    assert.equal((await stored(up.body.uuid)).waiting, 'New text about the lock keeper.');
    await runJob(up.body.uuid, 1);
    const [{ n } = { n: -1 }] = await sql<{ n: number }[]>`select count(*)::int as n from document_texts`;
    assert.equal(n, 0);
  });
});
