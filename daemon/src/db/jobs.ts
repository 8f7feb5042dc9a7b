import type { Tx } from './client.js';

/**
 * Enqueues a graphile-worker job in the caller's transaction, so the job exists if and only if the
 * row it processes does. A job_key makes re-enqueueing replace a not-yet-started job.
 */
export async function enqueueJob(
  tx: Tx,
  identifier: string,
  payload: Record<string, unknown>,
  opts: { jobKey?: string; maxAttempts?: number; runAt?: Date; priority?: number; queue?: string } = {},
): Promise<void> {
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
