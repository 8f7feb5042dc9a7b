import type { JobHelpers, Task } from 'graphile-worker';
import type { Tx } from '../db/client.js';
import type { AppDeps } from '../types.js';

export interface EnqueueOptions {
  jobKey?: string;
  maxAttempts?: number;
  runAt?: Date;
  priority?: number;
  queue?: string;
}

/**
 * Enqueues a graphile-worker job in the caller's transaction, so the job exists if and only if the
 * row it processes does. A job_key makes re-enqueueing replace a not-yet-started job.
 */
export async function enqueueJob(tx: Tx, identifier: string, payload: object, opts: EnqueueOptions = {}): Promise<void> {
  await tx`
    select graphile_worker.add_job(
      identifier => ${identifier},
      payload => ${tx.json(payload as never)}::json,
      queue_name => ${opts.queue ?? null},
      run_at => ${opts.runAt ?? null},
      max_attempts => ${opts.maxAttempts ?? null},
      job_key => ${opts.jobKey ?? null},
      priority => ${opts.priority ?? null}
    )`;
}

/**
 * Enqueues many jobs of one task in the caller's transaction with one call of graphile-worker's
 * add_jobs, which is what add_job runs for each job (job_key mode `replace`): the same jobs, but
 * one function call, four statements and one `jobs:insert` notification instead of that per job
 * (a batch upload queued a hundred, each notification distinct, so none were folded at commit).
 */
export async function enqueueJobs(tx: Tx, identifier: string, jobs: { payload: object; opts?: EnqueueOptions }[]): Promise<void> {
  if (!jobs.length) return;
  const o = jobs.map((j) => j.opts ?? {});
  await tx`
    select count(*)::int as n
      from graphile_worker.add_jobs(
             array(select row(${identifier}, t.payload::json, t.queue, t.run_at, t.max_attempts, t.job_key, t.priority, null)::graphile_worker.job_spec
                     from unnest(${jobs.map((j) => JSON.stringify(j.payload))}::text[], ${o.map((x) => x.queue ?? null)}::text[],
                                 ${o.map((x) => x.runAt?.toISOString() ?? null)}::timestamptz[], ${o.map((x) => x.maxAttempts ?? null)}::smallint[],
                                 ${o.map((x) => x.jobKey ?? null)}::text[], ${o.map((x) => x.priority ?? null)}::smallint[])
                          with ordinality as t(payload, queue, run_at, max_attempts, job_key, priority, ord)
                    order by t.ord),
             false)`;
}

/** One job: its identifier, its payload type, how to queue it and the task that runs it. */
export interface JobDefinition<P extends object> {
  readonly identifier: string;
  /** The graphile-worker task, given the daemon's dependencies. */
  readonly task: (deps: AppDeps) => Task;
  /** Queues the job in the caller's transaction (see enqueueJob); `opts` override the job's defaults. */
  enqueue(tx: Tx, payload: P, opts?: EnqueueOptions): Promise<void>;
  /** Queues many jobs in one statement (see enqueueJobs): the same jobs as enqueue() one after another. */
  enqueueMany(tx: Tx, jobs: { payload: P; opts?: EnqueueOptions }[]): Promise<void>;
}

/**
 * Declares a job in its feature folder; job-registry.ts lists them. `jobKey` derives the key from the
 * payload (one queued job per document, per webhook event…); `defaults` apply to every enqueue.
 */
export function defineJob<P extends object>(def: {
  identifier: string;
  task: (deps: AppDeps) => (payload: P, helpers: JobHelpers) => ReturnType<Task>;
  jobKey?: (payload: P) => string;
  defaults?: EnqueueOptions;
}): JobDefinition<P> {
  const optionsFor = (payload: P, opts: EnqueueOptions): EnqueueOptions => ({
    ...def.defaults,
    ...(def.jobKey ? { jobKey: def.jobKey(payload) } : {}),
    ...opts,
  });
  return {
    identifier: def.identifier,
    task: (deps) => {
      const run = def.task(deps);
      // graphile-worker hands the payload over as JSON it does not know the type of; only enqueue() writes it.
      return (payload, helpers) => run(payload as P, helpers);
    },
    enqueue: (tx, payload, opts = {}) => enqueueJob(tx, def.identifier, payload, optionsFor(payload, opts)),
    enqueueMany: (tx, jobs) =>
      enqueueJobs(
        tx,
        def.identifier,
        jobs.map(({ payload, opts = {} }) => ({ payload, opts: optionsFor(payload, opts) })),
      ),
  };
}
