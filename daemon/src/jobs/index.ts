import type { TaskList } from 'graphile-worker';
import type { AppDeps } from '../types.js';

/** Every graphile-worker task the daemon runs, keyed by identifier. */
export function buildTaskList(_deps: AppDeps): TaskList {
  return {};
}

/** Recurring jobs (graphile-worker crontab syntax). */
export const CRONTAB = '';
