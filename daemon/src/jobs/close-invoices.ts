import type { Task } from 'graphile-worker';
import { closeInvoices } from '../billing/invoices.js';
import { stripeClient } from '../billing/payments.js';
import type { AppDeps } from '../types.js';

/** Hourly: closes ended billing cycles into invoices and submits them (idempotent; see billing/invoices.ts). */
export function closeInvoicesTask(deps: AppDeps): Task {
  const stripe = stripeClient(deps.config);
  return async () => {
    const r = await closeInvoices({ sql: deps.sql, clock: deps.clock, logger: deps.logger, stripe });
    if (r.created || r.submitted || r.failed) deps.logger.info(r, 'billing cycles closed');
  };
}
