// Account administration from the web UI: an organization's administrators list its users, set
// their rate tier and disable or re-enable them. The operator CLI (`docsift-daemon admin`) does
// the same instance-wide; here an administrator never reaches another organization's users.
import { setUserActive } from './queries.js';
import { AppError } from '../errors.js';
import { TIER_LIMITS } from '../limits/windows.js';
import { isUuid } from '../ids.js';
import type { AppDeps, Caller, RateTier } from '../types.js';

export const RATE_TIERS = Object.keys(TIER_LIMITS) as RateTier[];

export interface AdminUserRow {
  id: string;
  email: string;
  name: string;
  role: 'owner' | 'member';
  is_admin: boolean;
  is_active: boolean;
  created_at: Date;
  /** Distinct tiers of the user's active keys, best first; empty without active keys. */
  tiers: RateTier[];
  active_keys: number;
}

/** Not an administrator: the pages and actions do not exist for them (404, like an unknown page). */
function requireAdmin(caller: Caller): void {
  if (!caller.isAdmin) throw new AppError('NOT_FOUND', 'Not found.');
}

function userNotFound(): AppError {
  return new AppError('NOT_FOUND', 'User not found.');
}

export async function listOrganizationUsers(deps: AppDeps, caller: Caller): Promise<AdminUserRow[]> {
  requireAdmin(caller);
  return deps.sql<AdminUserRow[]>`
    select u.id, u.email, u.name, u.role, u.is_admin, u.is_active, u.created_at,
           coalesce(k.tiers, '{}') as tiers, coalesce(k.n, 0)::int as active_keys
      from users u
      left join lateral (
        select array_agg(distinct rate_tier::text order by rate_tier::text) as tiers, count(*) as n
          from api_keys where user_id = u.id and is_active
      ) k on true
     where u.organization_id = ${caller.orgId}
     order by u.created_at, u.id`.then((rows) =>
    rows.map((r) => ({ ...r, tiers: [...r.tiers].sort((a, b) => RATE_TIERS.indexOf(b) - RATE_TIERS.indexOf(a)) })),
  );
}

async function orgUser(deps: AppDeps, caller: Caller, userId: string): Promise<{ id: string; email: string }> {
  requireAdmin(caller);
  const rows = isUuid(userId)
    ? await deps.sql<{ id: string; email: string }[]>`
        select id, email from users where id = ${userId} and organization_id = ${caller.orgId}`
    : [];
  if (!rows[0]) throw userNotFound();
  return rows[0];
}

/**
 * Sets the rate tier of every active key of a user. Limits are counted per user at the calling
 * key's tier, so one tier across the user's keys is what "the account's tier" means; new keys
 * inherit it.
 */
export async function setUserTier(deps: AppDeps, caller: Caller, userId: string, tier: string): Promise<{ email: string; keys: number }> {
  if (!(RATE_TIERS as string[]).includes(tier))
    throw new AppError('VALIDATION_FAILED', `Tier must be one of ${RATE_TIERS.join(', ')}.`, {
      tier: [`Choose ${RATE_TIERS.join(', ')}.`],
    });
  const user = await orgUser(deps, caller, userId);
  const r = await deps.sql`update api_keys set rate_tier = ${tier} where user_id = ${user.id} and is_active`;
  return { email: user.email, keys: r.count };
}

/** Disables or re-enables a user. A disabled user's keys answer 401 USER_ACCOUNT_DISABLED and its sessions end. */
export async function setUserStatus(deps: AppDeps, caller: Caller, userId: string, active: boolean): Promise<{ email: string }> {
  const user = await orgUser(deps, caller, userId);
  if (!active && user.id === caller.userId)
    throw new AppError('VALIDATION_FAILED', 'You cannot deactivate your own account: another administrator has to.', {
      user: ['This is you.'],
    });
  await deps.sql.begin(async (tx) => {
    await setUserActive(tx, user.id, active);
    if (!active) await tx`delete from sessions where user_id = ${user.id}`;
  });
  return { email: user.email };
}
