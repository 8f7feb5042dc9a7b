import type { Task } from 'graphile-worker';
import { foldTextIndex } from './fold.js';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';

/**
 * Folds the BM25 index: fresh postings and tombstones into the lists' blocks, statistics deltas
 * into their base rows. Searches are exact either way; folding keeps them fast and the index
 * compact. Concurrent runs skip on an advisory lock.
 */
export function foldTextStatsTask(deps: AppDeps): Task {
  return async () => {
    await foldTextIndex(deps.sql);
  };
}

export const foldTextStatsJob = defineJob<object>({ identifier: 'fold_text_stats', task: foldTextStatsTask });
