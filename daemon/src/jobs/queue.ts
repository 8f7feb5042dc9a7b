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

/** One job: its identifier, its payload type, how to queue it and the task that runs it. */
export interface JobDefinition<P extends object> {
  readonly identifier: string;
  /** The graphile-worker task, given the daemon's dependencies. */
  readonly task: (deps: AppDeps) => Task;
  /** Queues the job in the caller's transaction (see enqueueJob); `opts` override the job's defaults. */
  enqueue(tx: Tx, payload: P, opts?: EnqueueOptions): Promise<void>;
}

/**
 * Declares a job in its feature folder; jobs/index.ts lists them. `jobKey` derives the key from the
 * payload (one queued job per document, per webhook event…); `defaults` apply to every enqueue.
 */
export function defineJob<P extends object>(def: {
  identifier: string;
  task: (deps: AppDeps) => (payload: P, helpers: JobHelpers) => ReturnType<Task>;
  jobKey?: (payload: P) => string;
  defaults?: EnqueueOptions;
}): JobDefinition<P> {
  return {
    identifier: def.identifier,
    task: (deps) => {
      const run = def.task(deps);
      // graphile-worker hands the payload over as JSON it does not know the type of; only enqueue() writes it.
      return (payload, helpers) => run(payload as P, helpers);
    },
    enqueue: (tx, payload, opts = {}) =>
      enqueueJob(tx, def.identifier, payload, { ...def.defaults, ...(def.jobKey ? { jobKey: def.jobKey(payload) } : {}), ...opts }),
  };
}
