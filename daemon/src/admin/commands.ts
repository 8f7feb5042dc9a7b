// The admin subcommands of accounts, keys and billing, one table entry each (admin-registry.ts lists
// every subcommand; admin/command-line.ts parses the command line and runs them).
import { setUserActive } from '../accounts/queries.js';
import { createUserWithKey } from '../accounts/create.js';
import { createInvite } from '../auth/invites.js';
import { setKeyTier } from '../auth/key-tier.js';
import { passwordProblem } from '../auth/passwords.js';
import { setUserPassword } from '../auth/sessions.js';
import { closeInvoices, listInvoices } from '../billing/invoices.js';
import { setPlan } from '../billing/org-plan.js';
import { stripeClient } from '../billing/payments.js';
import { isPlanId, PLAN_IDS } from '../billing/plans.js';
import { publicUrl } from '../config.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { type AdminCommand, type AdminContext, required, tierOption, UsageError, userByEmail } from './command.js';

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a line from the terminal without echoing it. */
async function promptHidden(question: string, out: NodeJS.WritableStream): Promise<string> {
  const { createInterface } = await import('node:readline');
  const stdin = process.stdin;
  out.write(question);
  const rl = createInterface({ input: stdin, terminal: true, output: undefined });
  (stdin as NodeJS.ReadStream).setRawMode?.(true);
  try {
    return await new Promise<string>((resolve) => rl.once('line', resolve));
  } finally {
    (stdin as NodeJS.ReadStream).setRawMode?.(false);
    rl.close();
    out.write('\n');
  }
}

/** The new password: all of stdin (one trailing newline dropped) or two hidden prompts. */
async function readNewPassword(ctx: AdminContext, fromStdin: boolean): Promise<string> {
  if (fromStdin) return (await readAll(ctx.in ?? process.stdin)).replace(/\r?\n$/, '');
  if (!process.stdin.isTTY)
    throw new AppError('VALIDATION_FAILED', 'No terminal to prompt on: pass --password-stdin and pipe the password in.');
  const first = await promptHidden('New password: ', ctx.err);
  const second = await promptHidden('Repeat it: ', ctx.err);
  if (first !== second) throw new AppError('VALIDATION_FAILED', 'The two passwords differ.');
  return first;
}

function setActive(name: string, active: boolean, usage: string): AdminCommand {
  return {
    name,
    usage,
    examples: [`${name} --email ana@example.com`],
    options: { email: { type: 'string' } },
    async run(ctx, a) {
      const [email] = required(a, 'email');
      const user = await userByEmail(ctx, email!);
      await setUserActive(ctx.sql, user.id, active);
      a.print(`User ${email} is now ${active ? 'active' : 'disabled'}.`, { email, is_active: active });
    },
  };
}

export const COMMANDS: AdminCommand[] = [
  {
    name: 'create-user',
    examples: [
      'create-user --email ana@example.com --new-org Acme --tier basic',
      'create-user --email bo@example.com --org Acme --admin --json',
    ],
    usage: `  create-user --email E [--name N] (--org ID_OR_NAME | --new-org NAME) [--admin] [--tier free|basic|pro]
        Create a user and print its first full-access API key (shown once).`,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      org: { type: 'string' },
      'new-org': { type: 'string' },
      admin: { type: 'boolean' },
      tier: { type: 'string' },
    },
    async run(ctx, a) {
      const tier = tierOption(a);
      const [email] = required(a, 'email');
      if (!a.str('org') && !a.str('new-org')) throw new UsageError('Give --org or --new-org.');
      const r = await createUserWithKey(ctx.sql, {
        email: email!,
        name: a.str('name'),
        organization: a.str('org'),
        newOrganization: a.str('new-org'),
        admin: a.flag('admin'),
        tier,
        now: ctx.clock.now(),
      });
      a.print(
        `Created user ${r.user.email} (${r.user.id}) in organization "${r.organization.name}" (${r.organization.id}).\nFirst API key (shown once):\n\n  ${r.key}\n`,
        {
          user_id: r.user.id,
          email: r.user.email,
          organization_id: r.organization.id,
          organization_name: r.organization.name,
          key: r.key,
        },
      );
    },
  },
  {
    name: 'list-users',
    examples: ['list-users', "list-users --json | jq -r '.[].email'"],
    usage: '  list-users                          List users with their organization and status.',
    async run(ctx, a) {
      const rows = await ctx.sql<{ id: string; email: string; name: string; org: string; is_active: boolean; is_admin: boolean }[]>`
        select u.id, u.email, u.name, o.name as org, u.is_active, u.is_admin
          from users u join organizations o on o.id = u.organization_id order by u.created_at`;
      a.print(
        rows
          .map((r) => `${r.id}  ${r.email}  org=${r.org}  ${r.is_active ? 'active' : 'disabled'}${r.is_admin ? '  admin' : ''}`)
          .join('\n'),
        rows,
      );
    },
  },
  {
    name: 'set-tier',
    examples: ['set-tier --key svc_AbCd1234 --tier pro', 'set-tier --email ana@example.com --tier basic --json'],
    usage: `  set-tier (--key KEY_UUID|KEY_PREFIX | --email E) --tier free|basic|pro
        Set the rate tier of an API key (by its UUID or the prefix \`docsift keys list\` shows), or
        of every key of a user.`,
    options: { key: { type: 'string' }, email: { type: 'string' }, tier: { type: 'string' } },
    async run(ctx, a) {
      const tier = tierOption(a);
      const key = a.str('key');
      const email = a.str('email');
      if ((!key && !email) || !tier) throw new UsageError('--tier and --key (UUID or prefix) or --email are required.');
      const keys = await setKeyTier(ctx.sql, { key, email }, tier);
      a.print(
        keys.map((k) => `Key ${k.prefix}… (${k.id}) is now on tier ${tier}.`).join('\n'),
        email ? { email, tier, keys: keys.map((k) => k.id) } : { key: keys[0]!.id, tier },
      );
    },
  },
  setActive(
    'deactivate-user',
    false,
    '  deactivate-user --email E           Disable a user: all of its keys answer 401 USER_ACCOUNT_DISABLED.',
  ),
  setActive('activate-user', true, '  activate-user --email E             Re-enable a user.'),
  {
    name: 'set-plan',
    examples: [
      'set-plan --org 0b6c1d5e-8f2a-4c3b-9d7e-1a2b3c4d5e6f --plan pro',
      'set-plan --org 0b6c1d5e-8f2a-4c3b-9d7e-1a2b3c4d5e6f --plan starter --stripe-customer cus_N1x2',
    ],
    usage: `  set-plan --org ORG_ID --plan free|starter|pro [--stripe-customer cus_… | --no-stripe-customer]
        Change an organization's billing plan (applies to quotas at once; the cycle is invoiced at
        the plan in force when it ends). A Stripe customer id sends its invoices to Stripe
        (with STRIPE_SECRET_KEY set).`,
    options: {
      org: { type: 'string' },
      plan: { type: 'string' },
      'stripe-customer': { type: 'string' },
      'no-stripe-customer': { type: 'boolean' },
    },
    async run(ctx, a) {
      const [org, plan] = required(a, 'org', 'plan');
      if (!isPlanId(plan!)) throw new UsageError(`--plan must be one of ${PLAN_IDS.join(', ')}.`);
      const customer = a.flag('no-stripe-customer') ? null : a.str('stripe-customer');
      const r = await setPlan(ctx.sql, org!, plan, ctx.clock.now(), customer === undefined ? {} : { stripeCustomerId: customer });
      a.print(`Organization "${r.name}" (${r.id}) is now on the ${plan} plan (was ${r.from}).`, {
        organization_id: r.id,
        plan,
        previous_plan: r.from,
      });
    },
  },
  {
    name: 'invoices',
    examples: ['invoices', 'invoices --org 0b6c1d5e-8f2a-4c3b-9d7e-1a2b3c4d5e6f --json'],
    usage: '  invoices [--org ORG_ID]             List invoices, newest first.',
    options: { org: { type: 'string' } },
    async run(ctx, a) {
      const rows = await listInvoices(ctx.sql, { orgId: a.str('org'), limit: 1000 });
      const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
      a.print(
        rows.length
          ? rows
              .map(
                (i) =>
                  `${i.uuid}  org=${i.organization_uuid}  ${i.period_start.slice(0, 10)}..${i.period_end.slice(0, 10)}  ${i.plan}  used=${i.used_queries}  overage=${i.overage_queries}  total=${money(i.total_cents)}  ${i.status}${i.external_id ? ` ${i.external_id}` : ''}`,
              )
              .join('\n')
          : 'No invoices.',
        rows,
      );
    },
  },
  {
    name: 'close-invoices',
    examples: ['close-invoices', 'close-invoices --org 0b6c1d5e-8f2a-4c3b-9d7e-1a2b3c4d5e6f --json'],
    usage: `  close-invoices [--org ORG_ID]       Close ended billing cycles into invoices now (the worker also
                                      does this hourly; idempotent).`,
    options: { org: { type: 'string' } },
    async run(ctx, a) {
      const r = await closeInvoices(
        { sql: ctx.sql, clock: ctx.clock, logger: createLogger('warn', ctx.err), stripe: stripeClient(ctx.config) },
        { orgId: a.str('org') },
      );
      a.print(`Created ${r.created} invoice(s); submitted ${r.submitted}; failed ${r.failed}.`, r);
      return r.failed ? 1 : 0;
    },
  },
  {
    name: 'set-password',
    examples: ['set-password --email ana@example.com', 'set-password --email ana@example.com --password-stdin < password.txt'],
    usage: `  set-password --email E [--password-stdin]
        Set or reset the web UI password (prompted twice, or read from stdin). Signs out the user's sessions.`,
    options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
    async run(ctx, a) {
      const [email] = required(a, 'email');
      const user = await userByEmail(ctx, email!);
      const password = await readNewPassword(ctx, a.flag('password-stdin'));
      const problem = passwordProblem(password);
      if (problem) throw new AppError('VALIDATION_FAILED', `Password refused: ${problem}`);
      await ctx.sql.begin((tx) => setUserPassword(tx, user.id, password, ctx.clock.now()));
      a.print(`Password set for ${user.email}; existing web sessions were signed out.`, { email: user.email, password_set: true });
    },
  },
  {
    name: 'invite',
    examples: ['invite --email ana@example.com'],
    usage: '  invite --email E                    Print a one-time link (valid 7 days) where the user sets a web UI password.',
    options: { email: { type: 'string' } },
    async run(ctx, a) {
      const [email] = required(a, 'email');
      const user = await userByEmail(ctx, email!, ': create it first with create-user');
      if (!user.is_active) throw new AppError('USER_ACCOUNT_DISABLED', `User ${email} is disabled: activate-user first.`);
      const { token, expiresAt } = await createInvite(ctx.sql, user.id, ctx.clock.now());
      const link = `${publicUrl(ctx.config)}/app/invite/${token}`;
      a.print(`One-time invite link for ${user.email} (valid until ${expiresAt.toISOString()}):\n\n  ${link}\n`, {
        email: user.email,
        link,
        expires_at: expiresAt.toISOString(),
      });
    },
  },
];
