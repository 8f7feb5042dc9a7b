import type { Sql } from '../db/client.js';
import { AppError } from '../errors.js';
import type { PlanId } from './plans.js';
import { isUuid } from '../ids.js';

/**
 * Changes an organization's plan (and optionally its Stripe customer) and records the change, so
 * each cycle is invoiced at the plan in force when it ended. The quota applies the new plan at once.
 */
export async function setPlan(sql: Sql, orgId: string, plan: PlanId, now: Date, opts: { stripeCustomerId?: string | null } = {}) {
  return sql.begin(async (tx) => {
    const rows = isUuid(orgId)
      ? await tx<{ id: string; name: string; plan: PlanId }[]>`select id, name, plan from organizations where id = ${orgId} for update`
      : [];
    const org = rows[0];
    if (!org) throw new AppError('VALIDATION_FAILED', `No organization ${orgId}.`, { org: ['Not found.'] });
    if (org.plan !== plan) {
      await tx`insert into organization_plan_changes (organization_id, from_plan, to_plan, effective_at) values (${org.id}, ${org.plan}, ${plan}, ${now})`;
    }
    await tx`
      update organizations set plan = ${plan},
             stripe_customer_id = ${opts.stripeCustomerId === undefined ? tx`stripe_customer_id` : opts.stripeCustomerId}
       where id = ${org.id}`;
    return { id: org.id, name: org.name, from: org.plan, plan };
  }) as Promise<{ id: string; name: string; from: PlanId; plan: PlanId }>;
}
