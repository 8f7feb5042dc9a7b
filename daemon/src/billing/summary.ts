import type { Sql } from '../db/client.js';
import { chargesFor, cycleAt } from './plans.js';
import { orgBilling, searchesInCycle } from './quota.js';

const DAY_MS = 86_400_000;

/**
 * The organization's plan and the current cycle so far, for the dashboard. `used_queries` is the
 * live quota counter; the projection extrapolates the pace so far over the whole cycle (at least
 * one day of it counted as elapsed, so the first minutes do not project wildly). A plan with a hard
 * quota (no overage) stops searches at its included queries, so the projection stops there too.
 */
export async function planSummary(sql: Sql, orgId: string, now: Date) {
  const org = await orgBilling(sql, orgId);
  const cycle = cycleAt(org.anchor, now);
  const used = await searchesInCycle(sql, orgId, cycle);
  const soFar = chargesFor(org.plan, used);
  const length = cycle.end.getTime() - cycle.start.getTime();
  const elapsed = Math.min(length, Math.max(DAY_MS, now.getTime() - cycle.start.getTime()));
  const pace = Math.max(used, Math.round((used * length) / elapsed));
  const projectedQueries = org.plan.overageMillicents === null ? Math.min(pace, Math.max(used, org.plan.includedQueries)) : pace;
  const projected = chargesFor(org.plan, projectedQueries);
  return {
    plan: org.plan.id,
    name: org.plan.name,
    price_cents: org.plan.priceCents,
    included_queries: org.plan.includedQueries,
    overage_rate_millicents: org.plan.overageMillicents,
    hard_quota: org.plan.overageMillicents === null,
    cycle_start: cycle.start.toISOString(),
    cycle_end: cycle.end.toISOString(),
    used_queries: used,
    remaining_included_queries: Math.max(0, org.plan.includedQueries - used),
    overage_queries: soFar.overageQueries,
    overage_cents: soFar.overageCents,
    projected_queries: projectedQueries,
    projected_overage_cents: projected.overageCents,
    projected_total_cents: projected.totalCents,
  };
}
