import type { CollectionGrant, CreateKey, KeyExpiry } from '@docsift/sdk';
import { choiceFlag, collect, defineCommand, stringFlag } from '../../command.js';
import { UsageError } from '../../errors.js';
import { printSecret } from './secret.js';

export const EXPIRY_CHOICES: KeyExpiry[] = ['30d', '90d', '6m', '1y', 'never'];

interface Options {
  name: string | undefined;
  body: Omit<CreateKey, 'name'>;
  write: string[];
  /** Neither --full-access nor a grant was given: a key with no grants finds nothing, so ask or refuse. */
  unscoped: boolean;
}

const SCOPE_FLAGS = '--collection <slug> (repeatable, or --collections a,b), --write <slug>, or --full-access';

/** On a TTY: full access, or read grants on the slugs typed. */
async function askScope(): Promise<Pick<Options['body'], 'is_full_access' | 'collections'>> {
  const { input, select } = await import('@inquirer/prompts');
  const full = await select({
    message: 'What may this key reach?',
    choices: [
      { name: 'Some collections (read)', value: false },
      { name: 'Full access (every collection of yours, write on owned ones)', value: true },
    ],
  });
  if (full) return { is_full_access: true };
  const slugs = await input({ message: 'Collection slugs, comma-separated', required: true });
  return { is_full_access: false, collections: collect(slugs) };
}

export default defineCommand<Options>({
  name: 'create [name]',
  summary: 'Create a key (full access, or scoped to collections); prints the secret once',
  help: `Examples:
  docsift keys create ci-uploader --collection research --write research --expires 90d
  docsift keys create admin-script --full-access --json | jq -r .key

A key needs a scope: ${SCOPE_FLAGS}. Without one, a TTY asks; otherwise it is a usage error
(a key with no grants would silently find nothing).`,
  options: (cmd) =>
    cmd
      .option('--full-access', 'every collection of the owner, with write on owned ones')
      .option('-c, --collection <slug>', 'grant read on this collection (repeatable)', collect)
      .option('--collections <slugs>', 'grant read on these collections (comma-separated)', collect)
      .option('--write <slug>', 'grant write on this collection (repeatable)', collect)
      .option('--expires <when>', `lifetime: ${EXPIRY_CHOICES.join(', ')}`, 'never'),
  parse: ([name], flags) => {
    const full = !!flags.fullAccess;
    const read = [...((flags.collection as string[] | undefined) ?? []), ...((flags.collections as string[] | undefined) ?? [])];
    const write = (flags.write as string[] | undefined) ?? [];
    if (full && (read.length || write.length)) throw new UsageError('A full-access key takes no collection grants.');
    const expires = choiceFlag<KeyExpiry>(flags.expires, '--expires', EXPIRY_CHOICES)!;
    return {
      name: stringFlag(name),
      body: {
        is_full_access: full,
        expires_in: expires,
        ...(read.length || write.length ? { collections: [...new Set([...read, ...write])] } : {}),
      },
      write,
      unscoped: !full && !read.length && !write.length,
    };
  },
  async run(ctx, opts) {
    const name =
      opts.name ??
      (await ctx.prompt('key name', '<name>', async () => {
        const { input } = await import('@inquirer/prompts');
        return input({ message: 'Key name', required: true });
      }));
    const scope = opts.unscoped ? await ctx.prompt('key scope', SCOPE_FLAGS, askScope) : {};
    const client = await ctx.client();
    const created = await client.keys.create({ name, ...opts.body, ...scope });
    let grants: CollectionGrant[] = created.grants;
    for (const slug of opts.write) await client.keys.grant(created.uuid, { collection: slug, permission: 'write' });
    if (opts.write.length) grants = await client.keys.grants(created.uuid);
    const key = { ...created, grants };
    ctx.out.result(key, () => printSecret(ctx, key, 'Created'));
  },
});
