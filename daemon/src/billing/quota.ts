import type { Sql } from '../db/client.js';
import { AppError } from '../errors.js';
import type { AppDeps, Caller, SearchNote } from '../types.js';
import { cycleAt, isPlanId, PLANS, type Cycle, type Plan } from './plans.js';

export interface OrgBilling {
  id: string;
  plan: Plan;
  anchor: Date;
  stripeCustomerId: string | null;
}

export async function orgBilling(sql: Sql, orgId: string): Promise<OrgBilling> {
  const rows = await sql<{ id: string; plan: string; anchor: Date; stripe_customer_id: string | null }[]>`
    select id, plan, coalesce(billing_cycle_anchor, created_at) as anchor, stripe_customer_id
      from organizations where id = ${orgId}`;
  const r = rows[0];
  if (!r) throw new Error(`organization ${orgId} not found`);
  return { id: r.id, plan: PLANS[isPlanId(r.plan) ? r.plan : 'free'], anchor: r.anchor, stripeCustomerId: r.stripe_customer_id };
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Billable searches of the cycle recorded in the daily rollups (what the counter is seeded from). */
function loggedSearches(sql: Sql, orgId: string, cycle: Cycle) {
  return sql`
    select coalesce(sum(billable_searches), 0)::int from usage_daily
     where organization_id = ${orgId} and day >= ${day(cycle.start)}::date and day < ${day(cycle.end)}::date`;
}

/** Searches admitted so far in a cycle: the live quota counter, else the logged usage. */
export async function searchesInCycle(sql: Sql, orgId: string, cycle: Cycle): Promise<number> {
  const rows = await sql<{ searches: number }[]>`
    select coalesce((select searches from search_quota_usage where organization_id = ${orgId} and cycle_start = ${cycle.start}),
                    (${loggedSearches(sql, orgId, cycle)})) as searches`;
  return rows[0]?.searches ?? 0;
}

/**
 * Counts one search against the organization's plan. Free has no overage: its quota is a hard
 * limit, enforced by a conditional upsert (atomic, so concurrent searches cannot overshoot), and
 * the search is refused with 429 until the next cycle. Paid plans always pass; the overage is
 * charged on the invoice. Returns a refund for searches that then fail.
 */
export async function admitSearch(deps: AppDeps, caller: Caller): Promise<{ refund(): Promise<void> }> {
  const now = deps.clock.now();
  const org = await orgBilling(deps.sql, caller.orgId);
  const cycle = cycleAt(org.anchor, now);
  // Paid plans have no cap: the bound only applies to Free.
  const cap = org.plan.overageMillicents === null ? org.plan.includedQueries : 2_147_483_647;
  // Common case, one statement: the cycle's counter exists and has room.
  let rows = await deps.sql`
    update search_quota_usage set searches = searches + 1
     where organization_id = ${org.id} and cycle_start = ${cycle.start} and searches < ${cap}
    returning searches`;
  if (!rows.length) {
    // First search of the cycle (or the counter was lost in a crash): seed it from the logged
    // usage. Concurrent first searches meet in the upsert, which is atomic like the update.
    rows = await deps.sql`
      insert into search_quota_usage as q (organization_id, cycle_start, searches)
      select ${org.id}, ${cycle.start}, s.used + 1 from (${loggedSearches(deps.sql, org.id, cycle)}) as s(used) where s.used < ${cap}
      on conflict (organization_id, cycle_start) do update set searches = q.searches + 1 where q.searches < ${cap}
      returning searches`;
  }
  if (!rows.length) {
    const retryAfter = Math.max(1, Math.ceil((cycle.end.getTime() - now.getTime()) / 1000));
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `Plan quota used up: the ${org.plan.name} plan includes ${org.plan.includedQueries.toLocaleString('en-US')} searches per billing cycle and has no overage. Searches resume when the next cycle starts at ${cycle.end.toISOString()}, or upgrade the plan.`,
      undefined,
      // The headers describe the limit that refused: the cycle's quota, used up until the cycle ends
      // (not the per-minute request window the other answers report).
      {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(org.plan.includedQueries),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(Math.ceil(cycle.end.getTime() / 1000)),
      },
    );
  }
  return {
    refund: async () => {
      await deps.sql`
        update search_quota_usage set searches = searches - 1
         where organization_id = ${org.id} and cycle_start = ${cycle.start} and searches > 0`;
    },
  };
}

/**
 * The metering hook of search(): records the query on the request's log entry (`note`, from the
 * request context; absent for a caller the request log does not file, a web session), applies the plan
 * quota, and marks the search billable only once it has produced results. A search that fails
 * (unknown collection, backend down) gives its quota unit back and is not charged.
 */
export async function meterSearch<T extends { count: number }>(
  deps: AppDeps,
  caller: Caller,
  query: string,
  run: () => Promise<T>,
  note: SearchNote = { query: null, resultCount: null, billable: false, mcpToolCall: false },
): Promise<T> {
  if (!deps.config.METERING_ENABLED) return run();
  note.query = query;
  const admission = await admitSearch(deps, caller);
  let result: T;
  try {
    result = await run();
  } catch (err) {
    await admission.refund().catch((e: unknown) => deps.logger.warn({ err: e }, 'search quota refund failed'));
    throw err;
  }
  note.resultCount = result.count;
  note.billable = true;
  return result;
}
