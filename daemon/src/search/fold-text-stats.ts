import type { Task } from 'graphile-worker';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';

/**
 * Compacts BM25 statistics deltas into their base rows. Reads are exact either way (they sum base
 * and deltas); folding only keeps those reads fast. Concurrent runs skip on an advisory lock.
 */
export function foldTextStatsTask(deps: AppDeps): Task {
  return async () => {
    await deps.sql`select fold_text_stats()`;
  };
}

export const foldTextStatsJob = defineJob<object>({ identifier: 'fold_text_stats', task: foldTextStatsTask });
