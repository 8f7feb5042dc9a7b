import { PagePromise } from '../pagination.js';
import type { CallOptions, Transport } from '../transport.js';
import type { Invoice, InvoicesQuery, PlanStatus } from '../types.js';

export function billingResource(t: Transport) {
  return {
    /** Plan, current cycle, searches used and the projected bill (full-access keys). */
    plan(opts?: CallOptions): Promise<PlanStatus> {
      return t.get('/api/v1/billing/plan/', opts);
    },
    /** Invoices, newest cycle first; await for a page or `for await` over all (follows `next_before`). */
    invoices(query: Omit<InvoicesQuery, 'before'> = {}, opts?: CallOptions): PagePromise<Invoice> {
      return new PagePromise(async (before) => {
        const data = await t.get('/api/v1/billing/invoices/', { params: { query: { ...query, ...(before ? { before } : {}) } }, ...opts });
        return { data: data.items, nextCursor: data.next_before };
      });
    },
  };
}

export type BillingResource = ReturnType<typeof billingResource>;
