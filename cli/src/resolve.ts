import type { ApiKey, Collection } from '@docsift/sdk';
import type { Context } from './context.js';
import { CliError, UsageError } from './errors.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID_RE.test(s);

/** A collection by uuid, slug or name; prompts with a list when none was given on a TTY. */
export async function resolveCollection(ctx: Context, ref: string | undefined, flag = '--collection <slug>'): Promise<Collection> {
  const client = await ctx.client();
  if (ref === undefined) {
    const all = await client.collections.list();
    if (!all.length) throw new CliError('There are no collections yet.', 1, 'Create one: `docsift collections create <name>`.');
    return ctx.prompt('collection', flag, async () => {
      const { select } = await import('@inquirer/prompts');
      return select({
        message: 'Collection',
        choices: all.map((c) => ({ name: `${c.name} (${c.slug}, ${c.document_count} docs)`, value: c })),
      });
    });
  }
  const found = await client.collections.find(ref);
  if (!found)
    throw new CliError(
      `No visible collection matches "${ref}".`,
      1,
      'See `docsift collections list` (uuid, slug or exact name).',
      'COLLECTION_NOT_FOUND',
    );
  return found;
}

/** A key by uuid, prefix (svc_…) or exact name; ambiguity is a usage error listing the candidates. */
export async function resolveKey(ctx: Context, ref: string | undefined, what = 'key'): Promise<ApiKey> {
  const client = await ctx.client();
  const keys = await client.keys.list();
  if (ref === undefined) {
    return ctx.prompt(what, `<${what}> (uuid, prefix or name)`, async () => {
      const { select } = await import('@inquirer/prompts');
      return select({
        message: 'Key',
        choices: keys.filter((k) => k.is_active).map((k) => ({ name: `${k.name} (${k.prefix}…)`, value: k })),
      });
    });
  }
  const exact = keys.find((k) => k.uuid === ref || k.prefix === ref);
  if (exact) return exact;
  const matches = keys.filter((k) => (ref.startsWith('svc_') && (ref.startsWith(k.prefix) || k.prefix.startsWith(ref))) || k.name === ref);
  const active = matches.filter((k) => k.is_active);
  const pick = active.length === 1 ? active : matches;
  if (pick.length === 1) return pick[0]!;
  if (!pick.length)
    throw new CliError(`No key matches "${ref}".`, 1, 'See `docsift keys list` (uuid, prefix or name).', 'API_KEY_NOT_FOUND');
  throw new UsageError(
    `"${ref}" matches ${pick.length} keys: ${pick.map((k) => `${k.name} ${k.prefix} ${k.uuid}`).join('; ')}.`,
    'Use the uuid.',
  );
}

/** Asks before destroying something; without a TTY, --yes is required (exit 2 otherwise). */
export async function confirmOrYes(ctx: Context, yes: boolean, question: string): Promise<boolean> {
  if (yes) return true;
  return ctx.prompt('confirmation', '--yes', async () => {
    const { confirm } = await import('@inquirer/prompts');
    return confirm({ message: question, default: false });
  });
}
