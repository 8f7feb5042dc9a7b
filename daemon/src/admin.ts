import { parseArgs } from 'node:util';
import type { Config } from './config.js';
import type { Sql } from './db/client.js';
import { findUserByEmail, setUserActive } from './db/users.js';
import { AppError } from './errors.js';
import { createUserWithKey } from './services/accounts.js';
import type { Clock, RateTier } from './types.js';

export const ADMIN_USAGE = `docsift-daemon admin <subcommand> [options]   (add --json for machine output)

  create-user --email E [--name N] (--org ID_OR_NAME | --new-org NAME) [--admin] [--tier free|basic|pro]
        Create a user and print its first full-access API key (shown once).
  list-users                          List users with their organization and status.
  set-tier --key KEY_UUID --tier free|basic|pro
        Set the rate tier of an API key.
  deactivate-user --email E           Disable a user: all of its keys answer 401 USER_ACCOUNT_DISABLED.
  activate-user --email E             Re-enable a user.`;

export interface AdminContext {
  sql: Sql;
  config: Config;
  clock: Clock;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

const TIERS = ['free', 'basic', 'pro'] as const;

/** Runs one admin subcommand; returns the process exit code (0 ok, 1 error, 2 usage). */
export async function runAdmin(ctx: AdminContext, argv: string[]): Promise<number> {
  const [sub, ...args] = argv;
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      org: { type: 'string' },
      'new-org': { type: 'string' },
      admin: { type: 'boolean' },
      tier: { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const json = values.json === true;
  const print = (human: string, data: unknown) => ctx.out.write(json ? JSON.stringify(data) + '\n' : human + '\n');
  const usage = (msg: string) => {
    ctx.err.write(`${msg}\n\n${ADMIN_USAGE}\n`);
    return 2;
  };
  const tier = str('tier');
  if (tier && !TIERS.includes(tier as RateTier)) return usage(`--tier must be one of ${TIERS.join(', ')}.`);
  try {
    switch (sub) {
      case 'create-user': {
        const email = str('email');
        if (!email) return usage('--email is required.');
        if (!str('org') && !str('new-org')) return usage('Give --org or --new-org.');
        const r = await createUserWithKey(ctx.sql, {
          email,
          name: str('name'),
          organization: str('org'),
          newOrganization: str('new-org'),
          admin: values.admin === true,
          tier: tier as RateTier | undefined,
          now: ctx.clock.now(),
        });
        print(
          `Created user ${r.user.email} (${r.user.id}) in organization "${r.organization.name}" (${r.organization.id}).\nFirst API key (shown once):\n\n  ${r.key}\n`,
          { user_id: r.user.id, email: r.user.email, organization_id: r.organization.id, organization_name: r.organization.name, key: r.key },
        );
        return 0;
      }
      case 'list-users': {
        const rows = await ctx.sql<{ id: string; email: string; name: string; org: string; is_active: boolean; is_admin: boolean }[]>`
          select u.id, u.email, u.name, o.name as org, u.is_active, u.is_admin
            from users u join organizations o on o.id = u.organization_id order by u.created_at`;
        print(rows.map((r) => `${r.id}  ${r.email}  org=${r.org}  ${r.is_active ? 'active' : 'disabled'}${r.is_admin ? '  admin' : ''}`).join('\n'), rows);
        return 0;
      }
      case 'set-tier': {
        const key = str('key');
        if (!key || !tier) return usage('--key and --tier are required.');
        const rows = await ctx.sql`update api_keys set rate_tier = ${tier} where id::text = ${key} returning id`;
        if (!rows.length) throw new AppError('API_KEY_NOT_FOUND', `No API key ${key}.`);
        print(`Key ${key} is now on tier ${tier}.`, { key, tier });
        return 0;
      }
      case 'deactivate-user':
      case 'activate-user': {
        const email = str('email');
        if (!email) return usage('--email is required.');
        const user = await findUserByEmail(ctx.sql, email);
        if (!user) throw new AppError('VALIDATION_FAILED', `No user with email ${email}.`);
        const active = sub === 'activate-user';
        await setUserActive(ctx.sql, user.id, active);
        print(`User ${email} is now ${active ? 'active' : 'disabled'}.`, { email, is_active: active });
        return 0;
      }
      default:
        return usage(`Unknown admin subcommand "${sub ?? ''}".`);
    }
  } catch (err) {
    ctx.err.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
}
