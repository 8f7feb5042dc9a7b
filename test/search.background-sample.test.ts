import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INDEXED_SCOPE, readSample, sampleStatement, ScopeBackgrounds, SAMPLE_SIZE } from '../daemon/src/search/background.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';

// The background a hybrid query is judged against (search/background.ts) is a sample of the scope's
// chunks. Whether a query is on topic or above the floor must not depend on which daemon answers or
// when it started: two daemons over the same chunks draw the same sample.
/** Batches of 100 files: more chunks than a sample reads whole (1.5 × SAMPLE_SIZE). */
const BATCHES = 11;
const DOCS = BATCHES * 100;

describe('search background: the sample is the same for every daemon over the same chunks', () => {
  let ollama: FakeOllama;
  let d: TestDaemon;
  let t: Tenant;
  let ids: string[];
  before(async () => {
    ollama = await startFakeOllama({ dimension: 32, random: true });
    d = await startTestDaemon({
      label: 'bgsample',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'stand-in-random' },
    });
    t = await createTenant(d, 'bgs');
    const req = http(d.url);
    const col = await makeCollection(req, t.key, 'Sampled');
    ids = [col.uuid];
    for (let b = 0; b < BATCHES; b++) {
      const f = new FormData();
      for (let i = 0; i < 100; i++) f.append('files', new Blob([`Note ${b * 100 + i} about topic ${i % 7}.`]), `n-${b}-${i}.txt`);
      const r = await req('POST', `/api/v1/collections/${col.uuid}/documents/`, { key: t.key, body: f });
      assert.equal(r.status, 201, r.text);
    }
    const deadline = Date.now() + 120_000;
    for (;;) {
      const [row] = await d.deps.sql<
        { n: number }[]
      >`select count(*)::int as n from chunks where collection_id = ${col.uuid} and embedding is not null`;
      if (row!.n >= DOCS) break;
      assert.ok(Date.now() < deadline, `only ${row!.n} of ${DOCS} chunks embedded`);
      await d.deps.sql`select pg_sleep(0.2)`;
    }
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('draws a sample of the scope, not all of it, and draws it alike every time', async () => {
    const run = <T>(fn: (sql: never) => Promise<T>) => fn(d.deps.sql as never);
    const first = await new ScopeBackgrounds(5_000).get(run, ids, 32);
    const second = await new ScopeBackgrounds(5_000).get(run, ids, 32);
    assert.equal(first.chunks, DOCS);
    assert.ok(first.sample.length >= SAMPLE_SIZE / 2 && first.sample.length <= SAMPLE_SIZE, `${first.sample.length} sampled`);
    assert.deepEqual(
      second.sample.map((v) => [...v]),
      first.sample.map((v) => [...v]),
    );
    assert.deepEqual(second.pairs, first.pairs);
  });

  it('draws the same sample after the table is rewritten in another order', async () => {
    const run = <T>(fn: (sql: never) => Promise<T>) => fn(d.deps.sql as never);
    const before = await new ScopeBackgrounds(5_000).get(run, ids, 32);
    // CLUSTER rewrites the heap in id order: a sample that depended on the scan's order would change.
    await d.deps.sql`cluster chunks using chunks_pkey`;
    await d.deps.sql`analyze chunks`;
    const after = await new ScopeBackgrounds(5_000).get(run, ids, 32);
    assert.deepEqual(
      after.sample.map((v) => [...v]),
      before.sample.map((v) => [...v]),
    );
  });

  it('reads a large scope’s sample from the sample index, the same chunks as reading the scope whole', async () => {
    const size = 24; // the index holds about DOCS / 16 = 69 of the scope's chunks: more than 24
    const whole = await readSample(d.deps.sql as never, ids, 32, { chunks: DOCS, size, timeoutMs: 5_000 });
    const indexed = await readSample(d.deps.sql as never, ids, 32, { chunks: INDEXED_SCOPE, size, timeoutMs: 5_000 });
    assert.equal(whole.length, size);
    assert.deepEqual(
      indexed.map((v) => [...v]),
      whole.map((v) => [...v]),
    );
    // 1,100 rows are few enough for a sequential scan to look cheaper; without one, the planner
    // reads the sample index (a million rows choose it unaided: docs/performance.md).
    const plan = await d.deps.sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx`explain ${sampleStatement(tx as never, ids, 32, { indexed: true, size })}`;
    });
    assert.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /chunks_sample_idx/);
  });
});
