import { PagePromise } from '../pagination.js';
import type { CallOptions, Transport } from '../transport.js';
import type { Invoice, InvoicesQuery, PlanStatus } from '../types.js';

export function billingResource(t: Transport) {
  return {
    /** Plan, current cycle, searches used and the projected bill (full-access keys). */
    async plan(opts?: CallOptions): Promise<PlanStatus> {
      return (await t.call('GET', '/api/v1/billing/plan/', (init) => t.raw.GET('/api/v1/billing/plan/', init), opts)).data;
    },
    /** Invoices, newest cycle first; await for a page or `for await` over all (follows `next_before`). */
    invoices(query: Omit<InvoicesQuery, 'before'> = {}, opts?: CallOptions): PagePromise<Invoice> {
      return new PagePromise(async (before) => {
        const { data, response } = await t.call(
          'GET',
          '/api/v1/billing/invoices/',
          (init) => t.raw.GET('/api/v1/billing/invoices/', { ...init, params: { query: { ...query, ...(before ? { before } : {}) } } }),
          opts,
        );
        return { data: data.items, response, nextCursor: data.next_before };
      });
    },
  };
}

export type BillingResource = ReturnType<typeof billingResource>;
