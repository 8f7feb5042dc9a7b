import type { CollectionGrant, CreateKey, KeyExpiry } from '@docsift/sdk';
import { choiceFlag, collect, defineCommand, stringFlag } from '../../command.js';
import { UsageError } from '../../errors.js';
import { printSecret } from './secret.js';

export const EXPIRY_CHOICES: KeyExpiry[] = ['30d', '90d', '6m', '1y', 'never'];

interface Options {
  name: string | undefined;
  body: Omit<CreateKey, 'name'>;
  write: string[];
}

export default defineCommand<Options>({
  name: 'create [name]',
  summary: 'Create a key (full access, or scoped to collections); prints the secret once',
  help: `Examples:
  docsift keys create ci-uploader --collection research --write research --expires 90d
  docsift keys create admin-script --full-access --json | jq -r .key`,
  options: (cmd) =>
    cmd
      .option('--full-access', 'every collection of the owner, with write on owned ones')
      .option('-c, --collection <slug>', 'grant read on this collection (repeatable)', collect)
      .option('--write <slug>', 'grant write on this collection (repeatable)', collect)
      .option('--expires <when>', `lifetime: ${EXPIRY_CHOICES.join(', ')}`, 'never'),
  parse: ([name], flags) => {
    const full = !!flags.fullAccess;
    const read = (flags.collection as string[] | undefined) ?? [];
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
    };
  },
  async run(ctx, opts) {
    const name =
      opts.name ??
      (await ctx.prompt('key name', '<name>', async () => {
        const { input } = await import('@inquirer/prompts');
        return input({ message: 'Key name', required: true });
      }));
    const client = await ctx.client();
    const created = await client.keys.create({ name, ...opts.body });
    let grants: CollectionGrant[] = created.grants;
    for (const slug of opts.write) await client.keys.grant(created.uuid, { collection: slug, permission: 'write' });
    if (opts.write.length) grants = await client.keys.grants(created.uuid);
    const key = { ...created, grants };
    ctx.out.result(key, () => printSecret(ctx, key, 'Created'));
  },
});
