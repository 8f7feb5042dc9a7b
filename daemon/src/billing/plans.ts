export type PlanId = 'free' | 'starter' | 'pro';
export const PLAN_IDS: PlanId[] = ['free', 'starter', 'pro'];

export interface Plan {
  id: PlanId;
  name: string;
  priceCents: number;
  /** Searches per billing cycle included in the price. */
  includedQueries: number;
  /** Price of each search beyond the included ones, in millicents (1/1000 cent); null: no overage, the quota is a hard limit. */
  overageMillicents: number | null;
}

/** docs/service-spec.md §8, "Billing plans": $0 / $29 / $99; 1,000 / 10,000 / 100,000 searches; overage $0.002 / $0.001. */
export const PLANS: Record<PlanId, Plan> = {
  free: { id: 'free', name: 'Free', priceCents: 0, includedQueries: 1_000, overageMillicents: null },
  starter: { id: 'starter', name: 'Starter', priceCents: 2_900, includedQueries: 10_000, overageMillicents: 200 },
  pro: { id: 'pro', name: 'Pro', priceCents: 9_900, includedQueries: 100_000, overageMillicents: 100 },
};

export function isPlanId(s: string): s is PlanId {
  return (PLAN_IDS as string[]).includes(s);
}

export interface Cycle {
  start: Date;
  end: Date;
}

const utcDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** The anchor's day of the month, `months` months later, clamped to the month's last day (Jan 31 → Feb 28/29 → Mar 31). */
function anchorPlusMonths(anchorDay: Date, months: number): Date {
  const total = anchorDay.getUTCMonth() + months;
  const year = anchorDay.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(anchorDay.getUTCDate(), lastDay)));
}

/**
 * The monthly billing cycle containing `at`. Cycles start at 00:00 UTC on the anchor's day of the
 * month (clamped to shorter months), so every cycle is a whole number of UTC days and the daily
 * usage rollups add up to it exactly.
 */
export function cycleAt(anchor: Date, at: Date): Cycle {
  const anchorDay = utcDay(anchor);
  let n = (at.getUTCFullYear() - anchorDay.getUTCFullYear()) * 12 + (at.getUTCMonth() - anchorDay.getUTCMonth());
  if (anchorPlusMonths(anchorDay, n) > at) n -= 1;
  return { start: anchorPlusMonths(anchorDay, n), end: anchorPlusMonths(anchorDay, n + 1) };
}

/** The cycle that follows one. */
export function nextCycle(anchor: Date, c: Cycle): Cycle {
  return cycleAt(anchor, c.end);
}

/**
 * Overage in whole cents from exact integer millicents, rounded half up: 0.2 ¢ × 3 = 0.6 ¢ → 1 ¢,
 * × 2 = 0.4 ¢ → 0 ¢. Integers throughout (safe below 2^53 millicents, i.e. ~45 billion searches at 0.2 ¢).
 */
export function overageCents(queries: number, rateMillicents: number): number {
  if (!Number.isSafeInteger(queries) || !Number.isSafeInteger(rateMillicents) || queries < 0 || rateMillicents < 0) {
    throw new RangeError(`overageCents: bad input ${queries} × ${rateMillicents}`);
  }
  const millicents = BigInt(queries) * BigInt(rateMillicents);
  return Number((millicents + 500n) / 1000n);
}

export interface Charges {
  planFeeCents: number;
  includedQueries: number;
  usedQueries: number;
  overageQueries: number;
  overageRateMillicents: number | null;
  overageCents: number;
  totalCents: number;
}

/** What a cycle costs: the plan fee plus every search beyond the included ones at the overage rate. */
export function chargesFor(plan: Plan, usedQueries: number): Charges {
  const overageQueries = plan.overageMillicents === null ? 0 : Math.max(0, usedQueries - plan.includedQueries);
  const overage = plan.overageMillicents === null ? 0 : overageCents(overageQueries, plan.overageMillicents);
  return {
    planFeeCents: plan.priceCents,
    includedQueries: plan.includedQueries,
    usedQueries,
    overageQueries,
    overageRateMillicents: plan.overageMillicents,
    overageCents: overage,
    totalCents: plan.priceCents + overage,
  };
}
