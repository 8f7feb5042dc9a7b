import type { Task } from 'graphile-worker';
import { closeInvoices } from './invoices.js';
import { stripeClient } from './payments.js';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';

/** Hourly: closes ended billing cycles into invoices and submits them (idempotent; see billing/invoices.ts). */
export function closeInvoicesTask(deps: AppDeps): Task {
  const stripe = stripeClient(deps.config);
  return async () => {
    const r = await closeInvoices({ sql: deps.sql, clock: deps.clock, logger: deps.logger, stripe });
    if (r.created || r.submitted || r.failed) deps.logger.info(r, 'billing cycles closed');
  };
}

export const closeInvoicesJob = defineJob<object>({ identifier: 'close_invoices', task: closeInvoicesTask });
