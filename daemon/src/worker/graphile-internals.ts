import type postgres from 'postgres';
import type { Sql, Tx } from '../db/client.js';

/**
 * The one module that touches graphile-worker's private tables. graphile-worker documents
 * `_private_jobs` and `_private_tasks` as "not a public interface" that may change in a minor
 * version; everything else docsift does with jobs goes through its public functions (`add_jobs`,
 * `force_unlock_workers`) and its `jobs` view. What remains here has no public equivalent:
 *
 * - locking jobs for a worker (the batch claim of documents/batch-claim.ts): graphile-worker locks
 *   jobs only in its own fetch;
 * - completing or releasing jobs a worker holds: `complete_jobs`, `permanently_fail_jobs` and
 *   `reschedule_jobs` skip locked jobs (they are for jobs no worker runs);
 * - giving an attempt back (worker/recovery.ts): the job may already be running again, locked,
 *   which `reschedule_jobs` would skip;
 * - finding the jobs a worker of this process holds locked (worker/recovery.ts): a lock whose
 *   worker is alive but not running the job (its reply or release was lost with its connection);
 * - the job table's name, whose indexes indexing/drained-indexes.ts rebuilds once the queue drained.
 *
 * PRIVATE_COLUMNS lists every private column used here, and assertGraphileInternals (run at start-up
 * by every process that runs jobs, and by test/worker.graphile-internals.test.ts) fails naming the
 * missing ones: an upgrade of graphile-worker that changes them fails loudly, here, at once.
 */

/** graphile-worker's job table (v0.16's layout). */
export const JOB_TABLE = 'graphile_worker._private_jobs';

export const PRIVATE_COLUMNS = {
  _private_jobs: ['id', 'task_id', 'job_queue_id', 'payload', 'priority', 'run_at', 'attempts', 'is_available', 'locked_by', 'locked_at'],
  _private_tasks: ['id', 'identifier'],
} as const;

/** Throws, naming them, when a private table or column used by this module is missing. */
export async function assertGraphileInternals(sql: Sql): Promise<void> {
  const wanted = Object.entries(PRIVATE_COLUMNS).flatMap(([table, cols]) => cols.map((column) => ({ table, column })));
  const rows = await sql<{ table: string; column: string }[]>`
    select table_name::text as table, column_name::text as column
      from information_schema.columns
     where table_schema = 'graphile_worker' and table_name in ${sql(Object.keys(PRIVATE_COLUMNS))}`;
  const have = new Set(rows.map((r) => `${r.table}.${r.column}`));
  const missing = wanted.filter((w) => !have.has(`${w.table}.${w.column}`)).map((w) => `graphile_worker.${w.table}.${w.column}`);
  if (missing.length)
    throw new Error(
      `graphile-worker's private tables changed (missing ${missing.join(', ')}): ` +
        'daemon/src/worker/graphile-internals.ts must follow the installed version before docsift can run jobs',
    );
}

export interface LockedJob {
  jobId: string;
  payload: Record<string, unknown>;
  attempts: number;
}

/**
 * Locks up to `limit` available jobs of task `identifier` for `workerId`, as graphile-worker locks
 * the jobs it runs (attempts + 1, locked_by, locked_at): no other worker takes them, and crash
 * recovery releases them with the worker's own (force_unlock_workers). Taken in graphile-worker's
 * own order (priority, then run_at) along its index of available jobs; `where` (a condition on
 * `jobs.payload`) narrows the candidates, and the walk stops at the limit. Jobs in a named queue
 * are never taken (their queue's lock is graphile-worker's business).
 */
export async function lockJobs(
  sql: Sql,
  opts: { identifier: string; workerId: string; exceptJobId: string; limit: number; where: postgres.PendingQuery<postgres.Row[]> },
): Promise<LockedJob[]> {
  if (opts.limit <= 0) return [];
  return sql<LockedJob[]>`
    with j as (
      select jobs.id
        from graphile_worker._private_jobs jobs
       where jobs.task_id = (select t.id from graphile_worker._private_tasks t where t.identifier = ${opts.identifier})
         and jobs.is_available and jobs.run_at <= now() and jobs.job_queue_id is null and jobs.id <> ${opts.exceptJobId}::bigint
         and ${opts.where}
       order by jobs.priority, jobs.run_at
       limit ${opts.limit}
         for update of jobs skip locked
    )
    update graphile_worker._private_jobs jobs
       set attempts = jobs.attempts + 1, locked_by = ${opts.workerId}, locked_at = now()
      from j
     where jobs.id = j.id
    returning jobs.id::text as "jobId", jobs.payload, jobs.attempts`;
}

/** Completes (deletes) jobs `workerId` locked, in the transaction that wrote their outcome. */
export async function completeLockedJobs(tx: Tx, workerId: string, jobIds: string[]): Promise<void> {
  if (!jobIds.length) return;
  await tx`delete from graphile_worker._private_jobs where id = any(${jobIds}::bigint[]) and locked_by = ${workerId}`;
}

/** Unlocks jobs `workerId` locked, their attempt undone: each runs again as if never taken. */
export async function releaseLockedJobs(sql: Sql, workerId: string, jobIds: string[]): Promise<void> {
  if (!jobIds.length) return;
  await sql`
    update graphile_worker._private_jobs
       set locked_at = null, locked_by = null, attempts = greatest(attempts - 1, 0)
     where id = any(${jobIds}::bigint[]) and locked_by = ${workerId}`;
}

/** Undoes one attempt of each job, locked or not (an attempt that failed for reasons outside the job). */
export async function giveBackAttempts(sql: Sql, jobIds: string[]): Promise<void> {
  if (!jobIds.length) return;
  await sql`update graphile_worker._private_jobs set attempts = greatest(attempts - 1, 0) where id = any(${jobIds}::bigint[])`;
}

/** Jobs locked by any of `workerIds` since more than `seconds` ago (by the database's clock). */
export async function jobsLockedBy(sql: Sql, workerIds: string[], seconds: number): Promise<{ id: string; workerId: string }[]> {
  if (!workerIds.length) return [];
  return sql<{ id: string; workerId: string }[]>`
    select id::text as id, locked_by as "workerId" from graphile_worker._private_jobs
     where locked_by = any(${workerIds}::text[]) and locked_at < now() - make_interval(secs => ${seconds})`;
}
