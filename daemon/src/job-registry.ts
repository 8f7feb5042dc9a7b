import type { TaskList } from 'graphile-worker';
import { closeInvoicesJob } from './billing/close-invoices-job.js';
import { reindexLanguageJob } from './collections/language.js';
import { processDocumentJob } from './documents/process-document.js';
import { pitrBackupJob } from './pitr/backup-job.js';
import { purgeBlobsJob } from './documents/purge-blobs.js';
import { sweepOrphanBlobsJob } from './documents/sweep-orphan-blobs.js';
import { foldTextStatsJob } from './indexing/fold-text-stats.js';
import type { AppDeps } from './types.js';
import { rollupUsageJob } from './usage/rollup-usage.js';
import { deliverWebhookJob } from './webhooks/deliver-webhook.js';

// The registry: every job lives in its feature folder (defineJob in jobs/queue.ts); this lists them.
const JOBS = [
  processDocumentJob,
  deliverWebhookJob,
  purgeBlobsJob,
  sweepOrphanBlobsJob,
  foldTextStatsJob,
  rollupUsageJob,
  closeInvoicesJob,
  reindexLanguageJob,
  pitrBackupJob,
];

/** Every graphile-worker task the daemon runs, keyed by identifier. */
export function buildTaskList(deps: AppDeps): TaskList {
  return Object.fromEntries(JOBS.map((job) => [job.identifier, job.task(deps)]));
}

/**
 * Recurring jobs (graphile-worker crontab syntax): BM25 statistics folded every minute; blob purge and the sweep of unreferenced
 * blobs hourly; request-log retention daily;
 * billing cycles closed hourly (a cycle is invoiced within about an hour of its end); with PITR_REPO,
 * a base backup when the newest is older than 23 hours (checked hourly).
 * `fill`: a run missed while no worker was up (a deploy, an outage) is made when one starts, within
 * that window. However many workers run, graphile-worker schedules each period once
 * (_private_known_crontabs); test/scale.many-processes.test.ts checks it with two worker processes.
 */
export const CRONTAB = [
  `* * * * * ${foldTextStatsJob.identifier} ?max=1`,
  `17 * * * * ${purgeBlobsJob.identifier} ?max=3&fill=2h`,
  `37 * * * * ${sweepOrphanBlobsJob.identifier} ?max=3&fill=2h`,
  `41 3 * * * ${rollupUsageJob.identifier} ?max=3&fill=1d`,
  `7 * * * * ${closeInvoicesJob.identifier} ?max=3&fill=2h`,
  `47 * * * * ${pitrBackupJob.identifier} ?max=1&fill=2h`,
].join('\n');
