import type { TaskList } from 'graphile-worker';
import type { AppDeps } from '../types.js';
import { processDocumentTask } from './process-document.js';
import { purgeBlobsTask } from './purge-blobs.js';
import { PROCESS_JOB } from '../services/documents.js';

/** Every graphile-worker task the daemon runs, keyed by identifier. */
export function buildTaskList(deps: AppDeps): TaskList {
  return {
    [PROCESS_JOB]: processDocumentTask(deps),
    purge_blobs: purgeBlobsTask(deps),
  };
}

/** Recurring jobs (graphile-worker crontab syntax): blob purge hourly. */
export const CRONTAB = '17 * * * * purge_blobs ?max=3';
