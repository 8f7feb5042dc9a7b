import type { UpdateCollection } from '@docsift/sdk';
import { defineCommand, stringFlag } from '../../command.js';
import { UsageError } from '../../errors.js';
import { resolveCollection } from '../../resolve.js';
import { showCollection } from './show.js';

export default defineCommand<{ ref: string; patch: UpdateCollection }>({
  name: 'update <collection>',
  summary: 'Rename a collection, change its description or language, or make it public/private (owner only)',
  help: `Examples:
  docsift collections update research-papers --name "Papers" --description "2026 reading list"
  docsift collections update handbook --public
  docsift collections update handbook --language german   (reindexes it in the background)`,
  options: (cmd) =>
    cmd
      .option('--name <name>', 'new name (the slug stays)')
      .option('-d, --description <text>', 'new description')
      .option('--public', 'make it public')
      .option('--private', 'make it private')
      .option(
        '--language <config>',
        'text search language (english, french, german, chinese, japanese, simple, … see docsift collections languages); reindexes in the background',
      ),
  parse: ([ref], flags) => {
    if (flags.public && flags.private) throw new UsageError('Give --public or --private, not both.');
    const patch: UpdateCollection = {};
    const name = stringFlag(flags.name);
    const description = stringFlag(flags.description);
    if (name !== undefined) patch.name = name;
    if (description !== undefined) patch.description = description;
    const language = stringFlag(flags.language);
    if (language !== undefined) patch.language = language;
    if (flags.public) patch.is_public = true;
    if (flags.private) patch.is_public = false;
    if (!Object.keys(patch).length)
      throw new UsageError('Nothing to change.', 'Pass --name, --description, --public, --private or --language.');
    return { ref: ref!, patch };
  },
  async run(ctx, { ref, patch }) {
    const c = await resolveCollection(ctx, ref);
    const updated = await (await ctx.client()).collections.update(c.uuid, patch);
    ctx.out.result(updated, () => showCollection(ctx.out, updated));
  },
});
