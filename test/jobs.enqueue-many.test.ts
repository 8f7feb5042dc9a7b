import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { enqueueJob, enqueueJobs } from '../daemon/src/jobs/queue.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

// enqueueJobs queues many jobs in one statement (graphile-worker's add_jobs): every job must come
// out exactly as the same jobs queued one add_job at a time, job_key replacement included.
describe('jobs: enqueueJobs queues what enqueueJob queues, one job after another', () => {
  let db: TestDatabase;
  let sql: Sql;

  before(async () => {
    db = await createTestDatabase('enqueue_many');
    sql = createSql(db.url, { max: 2 });
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
  });

  /** The jobs of `prefix`'s keys (and the keyless ones of its payloads), comparable across prefixes. */
  async function jobs(prefix: string) {
    const rows = await sql<
      {
        id: string;
        key: string | null;
        payload: unknown;
        priority: number;
        max_attempts: number;
        attempts: number;
        queue: string | null;
        task: string;
        revision: number;
        locked: boolean;
        later: boolean;
      }[]
    >`
      select j.id, j.key, j.payload, j.priority, j.max_attempts, j.attempts, q.queue_name as queue, t.identifier as task, j.revision, j.locked_at is not null as locked,
             j.run_at > now() + interval '30 minutes' as later
        from graphile_worker._private_jobs j
        join graphile_worker._private_tasks t on t.id = j.task_id
        left join graphile_worker._private_job_queues q on q.id = j.job_queue_id
       where j.payload ->> 'set' = ${prefix}
       order by j.id`;
    return rows.map(({ id: _id, ...r }) => ({
      ...r,
      key: r.key?.replace(prefix, 'K') ?? null,
      payload: { ...(r.payload as object), set: 'X' },
    }));
  }

  async function lockJob(key: string): Promise<void> {
    await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'elsewhere', attempts = 1 where key = ${key}`;
  }

  it('creates, replaces unlocked and supersedes locked jobs like add_job', async () => {
    const specs = (set: string) => [
      // First: postgres.js types an array by its first element, and an array of Dates went as one timestamp.
      { payload: { set, n: 5 }, opts: { jobKey: `${set}:d`, runAt: new Date(Date.now() + 3_600_000) } },
      { payload: { set, n: 1 }, opts: { jobKey: `${set}:a`, priority: 3, maxAttempts: 5 } },
      { payload: { set, n: 2 }, opts: { jobKey: `${set}:b`, priority: 0, maxAttempts: 5 } },
      { payload: { set, n: 3 }, opts: { jobKey: `${set}:c` } },
      { payload: { set, n: 4 }, opts: { priority: 7, queue: 'q1' } },
    ];
    for (const set of ['one', 'many']) {
      // Earlier jobs under two of the keys: one waiting (replaced), one running (kept, loses its key).
      await sql.begin(async (tx) => {
        await enqueueJob(tx, 'process_document', { set, n: 0 }, { jobKey: `${set}:a`, priority: 9 });
        await enqueueJob(tx, 'process_document', { set, n: 0 }, { jobKey: `${set}:b`, priority: 9 });
      });
      await lockJob(`${set}:b`);
    }
    await sql.begin(async (tx) => {
      for (const s of specs('one')) await enqueueJob(tx, 'process_document', s.payload, s.opts);
    });
    await sql.begin((tx) => enqueueJobs(tx, 'process_document', specs('many')));
    const one = await jobs('one');
    assert.equal(one.length, 6);
    assert.equal(one.filter((j) => j.later).length, 1);
    assert.deepEqual(await jobs('many'), one);
  });

  it('queues nothing for no jobs', async () => {
    await sql.begin((tx) => enqueueJobs(tx, 'process_document', []));
  });
});
