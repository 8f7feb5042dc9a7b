import type { TaskList } from 'graphile-worker';
import type { AppDeps } from '../types.js';
import { processDocumentTask } from '../documents/process-document.js';
import { foldTextStatsTask } from './fold-text-stats.js';
import { purgeBlobsTask } from '../documents/purge-blobs.js';
import { sweepOrphanBlobsTask } from '../documents/sweep-orphan-blobs.js';
import { rollupUsageTask } from './rollup-usage.js';
import { closeInvoicesTask } from './close-invoices.js';
import { PROCESS_JOB } from '../documents/upload.js';
import { deliverWebhookTask } from '../webhooks/deliver-webhook.js';
import { DELIVER_WEBHOOK_JOB } from '../webhooks/delivery.js';

/** Every graphile-worker task the daemon runs, keyed by identifier. */
export function buildTaskList(deps: AppDeps): TaskList {
  return {
    [PROCESS_JOB]: processDocumentTask(deps),
    purge_blobs: purgeBlobsTask(deps),
    sweep_orphan_blobs: sweepOrphanBlobsTask(deps),
    fold_text_stats: foldTextStatsTask(deps),
    rollup_usage: rollupUsageTask(deps),
    close_invoices: closeInvoicesTask(deps),
    [DELIVER_WEBHOOK_JOB]: deliverWebhookTask(deps),
  };
}

/**
 * Recurring jobs (graphile-worker crontab syntax): BM25 statistics folded every minute; blob purge and the sweep of unreferenced
 * blobs hourly; request-log retention daily;
 * billing cycles closed hourly (a cycle is invoiced within about an hour of its end).
 */
export const CRONTAB = [
  '* * * * * fold_text_stats ?max=1',
  '17 * * * * purge_blobs ?max=3',
  '37 * * * * sweep_orphan_blobs ?max=3',
  '41 3 * * * rollup_usage ?max=3',
  '7 * * * * close_invoices ?max=3',
].join('\n');
