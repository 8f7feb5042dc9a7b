import type { Sql } from '../db/client.js';
import { issueKey } from '../auth/issue-key.js';
import { findOrganization, findUserByEmail, insertOrganization, insertUser, type UserRecord } from './queries.js';
import { AppError } from '../errors.js';
import type { RateTier } from '../types.js';

const BOOTSTRAP_LOCK_ID = 727_431_002;

export interface BootstrapResult {
  created: boolean;
  user?: UserRecord;
  key?: string;
}

/**
 * First start: one organization, an admin owner and a full-access key, printed once.
 * Idempotent and race-safe: a transaction-scoped advisory lock plus a marker row.
 */
export async function bootstrap(sql: Sql, opts: { email: string; orgName: string; now: Date }): Promise<BootstrapResult> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_ID})`;
    const done = await tx`select 1 from instance_settings where key = 'bootstrapped'`;
    if (done.length) return { created: false };
    const org = await insertOrganization(tx, opts.orgName);
    const user = await insertUser(tx, { organizationId: org.id, email: opts.email, name: 'Owner', role: 'owner', isAdmin: true });
    // Self-hosted defaults: the operator's own key is on the Pro tier and the organization on Pro,
    // whose searches beyond the included ones are billed as overage instead of answering 429.
    await tx`update organizations set plan = 'pro' where id = ${org.id}`;
    const issued = await issueKey(tx, { userId: user.id, name: 'bootstrap', isFullAccess: true, tier: 'pro', now: opts.now });
    await tx`insert into instance_settings (key, value) values ('bootstrapped', ${tx.json({ at: opts.now.toISOString(), user_id: user.id })})`;
    return { created: true, user, key: issued.key };
  }) as Promise<BootstrapResult>;
}

/** Admin: a new user in an existing organization (by id or name) or a new one, with a first full-access key. */
export async function createUserWithKey(
  sql: Sql,
  opts: { email: string; name?: string; organization?: string; newOrganization?: string; admin?: boolean; tier?: RateTier; now: Date },
): Promise<{ user: UserRecord; organization: { id: string; name: string }; key: string }> {
  return sql.begin(async (tx) => {
    if (await findUserByEmail(tx, opts.email))
      throw new AppError('VALIDATION_FAILED', `A user with email ${opts.email} already exists.`, { email: ['Already taken.'] });
    let org: { id: string; name: string } | undefined;
    let role: 'owner' | 'member' = 'member';
    if (opts.newOrganization) {
      org = await insertOrganization(tx, opts.newOrganization);
      role = 'owner';
    } else if (opts.organization) {
      org = await findOrganization(tx, opts.organization);
      if (!org) throw new AppError('VALIDATION_FAILED', `No organization ${opts.organization}.`, { organization: ['Not found.'] });
    } else {
      throw new AppError('VALIDATION_FAILED', 'Give an existing organization or a new organization name.', { organization: ['Required.'] });
    }
    const user = await insertUser(tx, {
      organizationId: org.id,
      email: opts.email,
      name: opts.name ?? '',
      role,
      isAdmin: opts.admin ?? false,
    });
    const issued = await issueKey(tx, { userId: user.id, name: 'first key', isFullAccess: true, tier: opts.tier ?? 'free', now: opts.now });
    return { user, organization: org, key: issued.key };
  }) as Promise<{ user: UserRecord; organization: { id: string; name: string }; key: string }>;
}
