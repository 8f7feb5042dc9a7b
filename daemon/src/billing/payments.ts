import Stripe from 'stripe';
import type { Config } from '../config.js';
import { PLANS, type Charges, type PlanId } from './plans.js';

/** An invoice as handed to a payment processor (amounts in integer cents). */
export interface InvoiceForPayment extends Charges {
  id: string;
  organizationId: string;
  periodStart: Date;
  periodEnd: Date;
  plan: PlanId;
  currency: string;
}

export interface PaymentResult {
  status: 'recorded' | 'sent';
  processor: 'local' | 'stripe';
  /** The processor's id for the invoice (Stripe: in_…); null when only recorded locally. */
  externalId: string | null;
}

/** Where closed invoices go. submit() must be safe to repeat for the same invoice (retries after a crash). */
export interface PaymentAdapter {
  readonly name: 'local' | 'stripe';
  submit(invoice: InvoiceForPayment, customer: { stripeCustomerId: string | null }): Promise<PaymentResult>;
}

/** Default: the invoice row in PostgreSQL is the record; nothing is sent anywhere. */
export const localAdapter: PaymentAdapter = {
  name: 'local',
  async submit() {
    return { status: 'recorded', processor: 'local', externalId: null };
  },
};

const day = (d: Date) => d.toISOString().slice(0, 10);
const unix = (d: Date) => Math.floor(d.getTime() / 1000);

function dollarsPerQuery(millicents: number): string {
  return `$${(millicents / 100_000).toFixed(5).replace(/0+$/, '')}`;
}

/**
 * Stripe: a draft invoice for the customer, one invoice item for the plan fee and one for the
 * overage (attached to that invoice, so unrelated pending items are left alone), then
 * finalization (Stripe charges the default payment method). Every call carries an idempotency
 * key derived from our invoice id, so a retry after a timeout or crash never bills twice.
 */
export function stripeAdapter(client: Stripe): PaymentAdapter {
  return {
    name: 'stripe',
    async submit(inv, customer) {
      if (!customer.stripeCustomerId) throw new Error('organization has no stripe_customer_id');
      const idem = (step: string) => ({ idempotencyKey: `docsift-invoice-${inv.id}-${step}` });
      const period = { start: unix(inv.periodStart), end: unix(inv.periodEnd) };
      const metadata = {
        docsift_invoice_id: inv.id,
        docsift_organization_id: inv.organizationId,
        period_start: inv.periodStart.toISOString(),
        period_end: inv.periodEnd.toISOString(),
      };
      const draft = await client.invoices.create(
        {
          customer: customer.stripeCustomerId,
          currency: inv.currency,
          collection_method: 'charge_automatically',
          auto_advance: true,
          pending_invoice_items_behavior: 'exclude',
          description: `docsift ${PLANS[inv.plan].name} plan, ${day(inv.periodStart)} to ${day(inv.periodEnd)}`,
          metadata,
        },
        idem('create'),
      );
      const invoiceId = draft.id!;
      if (inv.planFeeCents > 0) {
        await client.invoiceItems.create(
          {
            customer: customer.stripeCustomerId,
            invoice: invoiceId,
            currency: inv.currency,
            amount: inv.planFeeCents,
            period,
            description: `${PLANS[inv.plan].name} plan (${inv.includedQueries.toLocaleString('en-US')} searches included)`,
            metadata,
          },
          idem('plan-fee'),
        );
      }
      if (inv.overageCents > 0 && inv.overageRateMillicents !== null) {
        await client.invoiceItems.create(
          {
            customer: customer.stripeCustomerId,
            invoice: invoiceId,
            currency: inv.currency,
            amount: inv.overageCents,
            period,
            description: `${inv.overageQueries.toLocaleString('en-US')} searches over the included ${inv.includedQueries.toLocaleString('en-US')} at ${dollarsPerQuery(inv.overageRateMillicents)} each`,
            metadata,
          },
          idem('overage'),
        );
      }
      await client.invoices.finalizeInvoice(invoiceId, {}, idem('finalize'));
      return { status: 'sent', processor: 'stripe', externalId: invoiceId };
    },
  };
}

/** A Stripe client from STRIPE_SECRET_KEY; STRIPE_API_URL points it elsewhere (tests use a local stand-in). */
export function stripeClient(config: Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL'>): Stripe | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const opts: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 2, timeout: 20_000, telemetry: false };
  if (config.STRIPE_API_URL) {
    const u = new URL(config.STRIPE_API_URL);
    opts.host = u.hostname;
    opts.port = u.port || (u.protocol === 'http:' ? 80 : 443);
    opts.protocol = u.protocol === 'http:' ? 'http' : 'https';
  }
  return new Stripe(config.STRIPE_SECRET_KEY, opts);
}

/**
 * Stripe for organizations with a Stripe customer when Stripe is configured, and only for
 * invoices with something to charge; everything else is recorded locally.
 */
export function adapterFor(stripe: Stripe | null, org: { stripeCustomerId: string | null }, totalCents: number): PaymentAdapter {
  return stripe && org.stripeCustomerId && totalCents > 0 ? stripeAdapter(stripe) : localAdapter;
}
