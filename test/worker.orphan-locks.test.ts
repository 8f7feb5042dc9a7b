// A job locked by a worker that is alive but not running it: the reply of the statement that
// locked it (graphile-worker's fetch, a batch claim) or the release of a batch claim was lost with
// its connection in a database restart. graphile-worker's own lock expiry is 4 hours; crash
// recovery releases such a lock within seconds, its attempt given back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { until } from './helpers/chaos-db.js';
import { createTenant, http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';

describe('worker: a lock held by a live worker that is not running the job', () => {
  let api: TestDaemon;
  let worker: TestDaemon | undefined;
  before(async () => {
    api = await startTestDaemon({ label: 'orphan' });
  });
  after(async () => {
    await worker?.close();
    await api?.close();
  });

  it('is released within seconds and the document indexed, its attempt given back', async () => {
    const t = await createTenant(api, 'orphan');
    const req = http(api.url);
    const coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Orphans' } })).body.uuid as string;
    const doc = await req('POST', `/api/v1/collections/${coll}/documents/`, {
      key: t.key,
      json: { source_type: 'text', content: 'The lock outlived the connection that took it.', title: 'orphan' },
    });
    assert.equal(doc.status, 201);
    const id = doc.body.uuid as string;
    const sql = api.deps.sql;
    // Held by a worker that looks alive, until the real worker below is up: nothing runs it meanwhile.
    await sql`insert into worker_heartbeats (worker_id, hostname, pid, last_seen) values ('placeholder', 'test', 1, now() + interval '1 hour')`;
    await sql`
      update graphile_worker._private_jobs set locked_by = 'placeholder', locked_at = now(), attempts = attempts + 1
       where payload ->> 'documentId' = ${id}`;
    worker = await startTestDaemon({
      label: 'orphan-worker',
      db: api.db,
      api: false,
      worker: true,
      env: { WORKER_HEARTBEAT_MS: '300', WORKER_STALE_MS: '1500', WORKER_CONCURRENCY: '2' },
    });
    const live = await until(
      async () => (await sql<{ worker_id: string }[]>`select worker_id from worker_heartbeats where pid = ${process.pid}`)[0]?.worker_id,
      20_000,
      'a live worker of the new daemon',
    );
    // Its fetch reply was lost: the job is locked by a live, idle worker, as it was a minute ago.
    await sql`
      update graphile_worker._private_jobs set locked_by = ${live}, locked_at = now() - interval '1 minute'
       where payload ->> 'documentId' = ${id}`;
    await sql`delete from worker_heartbeats where worker_id = 'placeholder'`;
    const t0 = Date.now();
    await until(
      async () => (await sql<{ status: string }[]>`select status from documents where id = ${id}`)[0]?.status === 'indexed' || undefined,
      15_000,
      'the document to be indexed',
    ).catch(async (err: Error) => {
      const jobs = await sql`select id, attempts, locked_by, locked_at from graphile_worker._private_jobs`;
      throw new Error(`${err.message}; jobs: ${JSON.stringify(jobs)}`);
    });
    const [d] = await sql<{ attempts: number }[]>`select attempts from documents where id = ${id}`;
    assert.equal(d!.attempts, 1, 'the lost attempt was given back: indexed at its first attempt');
    assert.ok(Date.now() - t0 < 15_000);
  });
});
