import type { Task } from 'graphile-worker';
import type { Sql } from '../db/client.js';
import { pruneCounters } from '../limits/limiter.js';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';

const BATCH = 10_000;
const DAY_MS = 86_400_000;

/**
 * Daily upkeep of usage data. The daily rollups themselves are maintained when the request log is
 * flushed (same statement as the raw insert, so they never lag or disagree); this job applies
 * USAGE_RETENTION_DAYS to the raw log, in short batches so it never holds long locks, and drops
 * rate-limit counters of users idle for a whole month. Rollups are kept forever.
 */
export async function pruneUsageLog(sql: Sql, retentionDays: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  let deleted = 0;
  for (;;) {
    const r = await sql`
      delete from request_log where id in (select id from request_log where ts < ${cutoff} limit ${BATCH})`;
    deleted += r.count;
    if (r.count < BATCH) return deleted;
  }
}

export function rollupUsageTask(deps: AppDeps): Task {
  return async () => {
    const now = deps.clock.now();
    const logRows = await pruneUsageLog(deps.sql, deps.config.USAGE_RETENTION_DAYS, now);
    const counters = await pruneCounters(deps.sql, now);
    if (logRows || counters) deps.logger.info({ logRows, counters }, 'usage retention applied');
  };
}

export const rollupUsageJob = defineJob<object>({ identifier: 'rollup_usage', task: rollupUsageTask });
