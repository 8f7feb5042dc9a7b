import type { Sql } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { Clock } from '../types.js';
import { adapterFor, type InvoiceForPayment } from './payments.js';
import type Stripe from 'stripe';
import { chargesFor, cycleAt, isPlanId, nextCycle, PLANS, type Cycle, type PlanId } from './plans.js';
import { isUuid } from '../ids.js';

/** A cycle is closed this long after it ended, so requests still in the log buffers are counted. */
export const CLOSE_GRACE_MS = 10 * 60_000;
/** Ended cycles one organization may close in one run (a long-idle installation catches up over runs). */
const MAX_CYCLES_PER_RUN = 24;
/** After this many failed submissions an invoice stays `failed` until an operator looks at it. */
const MAX_ATTEMPTS = 10;

export interface BillingContext {
  sql: Sql;
  clock: Clock;
  logger: Logger;
  stripe: Stripe | null;
}

interface InvoiceRow {
  id: string;
  organization_id: string;
  period_start: Date;
  period_end: Date;
  plan: PlanId;
  currency: string;
  plan_fee_cents: number;
  included_queries: number;
  used_queries: number;
  overage_queries: number;
  overage_rate_millicents: number | null;
  overage_cents: number;
  total_cents: number;
  status: 'pending' | 'recorded' | 'sent' | 'failed';
  processor: 'local' | 'stripe';
  external_id: string | null;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

// bigint columns come back as strings from postgres.js; float8 is exact for any realistic amount.
const INVOICE_COLUMNS = (sql: Sql) => sql`
  id, organization_id, period_start, period_end, plan, currency, plan_fee_cents::float8 as plan_fee_cents,
  included_queries::float8 as included_queries, used_queries::float8 as used_queries, overage_queries::float8 as overage_queries,
  overage_rate_millicents, overage_cents::float8 as overage_cents, total_cents::float8 as total_cents, status, processor,
  external_id, attempts, last_error, created_at, sent_at`;

/** The plan in force at `at`: the last change before it, else the plan before the first change after it, else the current plan. */
export async function planAt(sql: Sql, orgId: string, at: Date): Promise<PlanId> {
  const rows = await sql<{ plan: string }[]>`
    select coalesce(
      (select to_plan from organization_plan_changes where organization_id = ${orgId} and effective_at < ${at} order by effective_at desc, id desc limit 1),
      (select from_plan from organization_plan_changes where organization_id = ${orgId} and effective_at >= ${at} order by effective_at, id limit 1),
      (select plan from organizations where id = ${orgId})) as plan`;
  const p = rows[0]?.plan ?? 'free';
  return isPlanId(p) ? p : 'free';
}

/** Billable searches of a cycle, from the daily rollups of the request log (cycles are whole UTC days). */
export async function billableSearches(sql: Sql, orgId: string, cycle: Cycle): Promise<number> {
  const rows = await sql<{ n: number }[]>`
    select coalesce(sum(billable_searches), 0)::float8 as n from usage_daily
     where organization_id = ${orgId}
       and day >= ${cycle.start.toISOString().slice(0, 10)}::date and day < ${cycle.end.toISOString().slice(0, 10)}::date`;
  return rows[0]?.n ?? 0;
}

/** Creates the invoice of one ended cycle unless it exists; returns whether this call created it. */
async function closeCycle(sql: Sql, orgId: string, cycle: Cycle): Promise<boolean> {
  const plan = PLANS[await planAt(sql, orgId, cycle.end)];
  const c = chargesFor(plan, await billableSearches(sql, orgId, cycle));
  const rows = await sql`
    insert into invoices (organization_id, period_start, period_end, plan, plan_fee_cents, included_queries, used_queries,
                          overage_queries, overage_rate_millicents, overage_cents, total_cents)
    values (${orgId}, ${cycle.start}, ${cycle.end}, ${plan.id}, ${c.planFeeCents}, ${c.includedQueries}, ${c.usedQueries},
            ${c.overageQueries}, ${c.overageRateMillicents}, ${c.overageCents}, ${c.totalCents})
    on conflict (organization_id, period_start) do nothing
    returning id`;
  return rows.length > 0;
}

export interface CloseResult {
  created: number;
  submitted: number;
  failed: number;
}

/**
 * Closes every ended billing cycle into an invoice, then submits pending invoices to the payment
 * adapter. Idempotent: an invoice is unique per (organization, period_start), so running this
 * twice (or in two processes at once) makes one invoice per cycle.
 */
export async function closeInvoices(ctx: BillingContext, opts: { orgId?: string } = {}): Promise<CloseResult> {
  const cutoff = new Date(ctx.clock.now().getTime() - CLOSE_GRACE_MS);
  const orgs = await ctx.sql<{ id: string; anchor: Date; last_end: Date | null }[]>`
    select o.id, coalesce(o.billing_cycle_anchor, o.created_at) as anchor,
           (select max(period_end) from invoices i where i.organization_id = o.id) as last_end
      from organizations o
     where ${orgFilter(ctx.sql, 'o.id', opts.orgId)}
     order by o.created_at`;
  let created = 0;
  for (const org of orgs) {
    let cycle = cycleAt(org.anchor, org.last_end ?? org.anchor);
    for (let i = 0; i < MAX_CYCLES_PER_RUN && cycle.end <= cutoff; i++, cycle = nextCycle(org.anchor, cycle)) {
      if (await closeCycle(ctx.sql, org.id, cycle)) created++;
    }
  }
  const { submitted, failed } = await submitPending(ctx, opts);
  return { created, submitted, failed };
}

/** Hands pending (and earlier failed) invoices to their adapter, one at a time, each row locked while it is sent. */
async function submitPending(ctx: BillingContext, opts: { orgId?: string }): Promise<{ submitted: number; failed: number }> {
  let submitted = 0;
  let failed = 0;
  const ids = await ctx.sql<{ id: string }[]>`
    select id from invoices
     where status in ('pending', 'failed') and attempts < ${MAX_ATTEMPTS}
       and ${orgFilter(ctx.sql, 'organization_id', opts.orgId)}
     order by created_at`;
  for (const { id } of ids) {
    await ctx.sql.begin(async (tx) => {
      const rows = await tx<(InvoiceRow & { stripe_customer_id: string | null })[]>`
        select ${INVOICE_COLUMNS(tx as unknown as Sql)}, (select stripe_customer_id from organizations o where o.id = organization_id) as stripe_customer_id
          from invoices where id = ${id} and status in ('pending', 'failed') for update skip locked`;
      const inv = rows[0];
      if (!inv) return; // another process has it, or it was sent meanwhile
      const customer = { stripeCustomerId: inv.stripe_customer_id };
      const adapter = adapterFor(ctx.stripe, customer, inv.total_cents);
      try {
        const r = await adapter.submit(toPayment(inv), customer);
        await tx`
          update invoices set status = ${r.status}, processor = ${r.processor}, external_id = ${r.externalId},
                 attempts = attempts + 1, last_error = null, sent_at = ${ctx.clock.now()}
           where id = ${id}`;
        submitted++;
      } catch (err) {
        const message = (err as Error)?.message ?? String(err);
        await tx`update invoices set status = 'failed', processor = ${adapter.name}, attempts = attempts + 1, last_error = ${message.slice(0, 1000)} where id = ${id}`;
        ctx.logger.error({ err, invoice: id }, 'invoice submission failed; retried on the next run');
        failed++;
      }
    });
  }
  return { submitted, failed };
}

function toPayment(r: InvoiceRow): InvoiceForPayment {
  return {
    id: r.id,
    organizationId: r.organization_id,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    plan: r.plan,
    currency: r.currency,
    planFeeCents: r.plan_fee_cents,
    includedQueries: r.included_queries,
    usedQueries: r.used_queries,
    overageQueries: r.overage_queries,
    overageRateMillicents: r.overage_rate_millicents,
    overageCents: r.overage_cents,
    totalCents: r.total_cents,
  };
}

export function invoiceJson(r: InvoiceRow) {
  return {
    uuid: r.id,
    organization_uuid: r.organization_id,
    period_start: r.period_start.toISOString(),
    period_end: r.period_end.toISOString(),
    plan: r.plan,
    currency: r.currency,
    plan_fee_cents: r.plan_fee_cents,
    included_queries: r.included_queries,
    used_queries: r.used_queries,
    overage_queries: r.overage_queries,
    overage_rate_millicents: r.overage_rate_millicents,
    overage_cents: r.overage_cents,
    total_cents: r.total_cents,
    status: r.status,
    processor: r.processor,
    external_id: r.external_id,
    created_at: r.created_at.toISOString(),
  };
}

/** An optional organization filter; an id that is no uuid matches nothing (no cast of every row's id). */
function orgFilter(sql: Sql, column: 'o.id' | 'organization_id', orgId: string | undefined) {
  if (!orgId) return sql`true`;
  if (!isUuid(orgId)) return sql`false`;
  return column === 'o.id' ? sql`o.id = ${orgId}` : sql`organization_id = ${orgId}`;
}

/** Invoices newest period first; `before` is the period_start of the last invoice of the previous page. */
export async function listInvoices(sql: Sql, opts: { orgId?: string; limit: number; before?: Date }) {
  const rows = await sql<InvoiceRow[]>`
    select ${INVOICE_COLUMNS(sql)} from invoices
     where ${orgFilter(sql, 'organization_id', opts.orgId)}
       and ${opts.before ? sql`period_start < ${opts.before}` : sql`true`}
     order by period_start desc, organization_id
     limit ${opts.limit}`;
  return rows.map(invoiceJson);
}
