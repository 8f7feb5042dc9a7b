import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DRAINED_TABLES, rebuildDrainedIndexes } from '../daemon/src/indexing/drained-indexes.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';

// A bulk upload fills document_texts (text waiting for processing) and the job queue; processing
// empties them, but their btrees keep the peak's pages. Once drained, the fold rebuilds them
// concurrently; a backlog still queued is left alone, and a rebuild that fails leaves no unfinished
// index copy behind.

const QUEUES = ['document_texts', 'graphile_worker._private_jobs'] as const;
const noSlack = { slack: Object.fromEntries(DRAINED_TABLES.map((t) => [t.table, 0])) };

describe('index: rebuilding the indexes of drained queue tables', () => {
  let ollama: FakeOllama;
  let api: TestDaemon;
  let owner: Tenant;
  let coll: string;
  const ids: string[] = [];
  const indexBytes = async (table: string) =>
    (
      await api.deps.sql<{ b: number }[]>`
        select coalesce(sum(pg_relation_size(indexrelid)), 0)::float8 as b from pg_index where indrelid = to_regclass(${table})`
    )[0]!.b;

  before(async () => {
    ollama = await startFakeOllama();
    const env = { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url };
    api = await startTestDaemon({ label: 'drained', worker: false, env });
    owner = await createTenant(api, 'drained');
    const req = http(api.url);
    coll = (await makeCollection(req, owner.key, 'Drained')).uuid;
    // A backlog of 240 inline texts (their text waits in document_texts), queued while no worker runs.
    for (let b = 0; b < 8; b++) {
      const docs = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          addText(req, owner.key, coll, `Note ${b}-${i}`, `Queued note ${b}-${i} about copper lanterns.`),
        ),
      );
      ids.push(...docs.map((doc) => doc.uuid as string));
    }
  });
  after(async () => {
    await api?.close();
    await ollama?.close();
  });

  it('leaves the indexes of a queued backlog alone', async () => {
    const states = await rebuildDrainedIndexes(api.deps.sql, noSlack);
    for (const table of QUEUES)
      assert.deepEqual(
        states.find((s) => s.table === table),
        { table, drained: false, rebuilt: false },
      );
  });

  it('rebuilds them once processing has drained the tables, and they come out small', async () => {
    const worker = await startTestDaemon({
      db: api.db,
      api: false,
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, DATA_DIR: api.dataDir },
    });
    try {
      await waitSettled(http(api.url), owner.key, ids, 120_000);
    } finally {
      await worker.close();
    }
    const before = Object.fromEntries(await Promise.all(QUEUES.map(async (t) => [t, await indexBytes(t)] as const)));
    const states = await rebuildDrainedIndexes(api.deps.sql, noSlack);
    for (const table of QUEUES) {
      assert.deepEqual(
        states.find((s) => s.table === table),
        { table, drained: true, rebuilt: true },
      );
      const now = await indexBytes(table);
      assert.ok(now < before[table]!, `${table}: ${before[table]} → ${now} B`);
    }
    // With the default slack, indexes this small are left alone.
    for (const s of await rebuildDrainedIndexes(api.deps.sql)) assert.equal(s.rebuilt, false, s.table);
  });

  it('a failed rebuild leaves no invalid copy behind, and the error is passed on', async () => {
    const sql = api.deps.sql;
    // An open transaction that wrote to the table makes the rebuild wait; cancelled meanwhile, it fails.
    const writer = await sql.reserve();
    await writer`begin`;
    await writer`insert into document_texts (document_id, content) values (${ids[0]!}, 'held')`;
    const rebuild = rebuildDrainedIndexes(sql, { slack: { document_texts: 0 } }).then(
      () => undefined,
      (err: unknown) => err as { code?: string },
    );
    const waits = async () =>
      (
        await sql<{ pid: number }[]>`
          select pid from pg_stat_activity where query ilike 'reindex table concurrently document_texts%' and wait_event_type = 'Lock'`
      )[0];
    let waiting: { pid: number } | undefined;
    for (let i = 0; i < 200 && !(waiting = await waits()); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(waiting, 'the rebuild waits for the open writer');
    // Cancelled while it waits; the writer then finishes (dropping the copy waits for it too).
    await sql`select pg_cancel_backend(${waiting.pid})`;
    await writer`rollback`;
    writer.release();
    const err = await rebuild;
    assert.equal(err?.code, '57014', 'the cancel is reported');
    const invalid = await sql`select 1 from pg_index where indrelid = 'document_texts'::regclass and not indisvalid`;
    assert.equal(invalid.length, 0, 'no invalid index copy is left');
  });
});
