import { defineCommand, stringFlag } from '../../command.js';
import { showCollection } from './show.js';

interface Options {
  name: string | undefined;
  description: string | undefined;
  isPublic: boolean;
}

export default defineCommand<Options>({
  name: 'create [name]',
  summary: 'Create a collection (private unless --public)',
  help: 'Example:\n  docsift collections create "Research papers" --description "2024 reading list"',
  options: (cmd) => cmd.option('-d, --description <text>', 'description').option('--public', 'let other users subscribe to it'),
  parse: ([name], flags) => ({ name, description: stringFlag(flags.description), isPublic: !!flags.public }),
  async run(ctx, opts) {
    const name =
      opts.name ??
      (await ctx.prompt('collection name', '<name>', async () => {
        const { input } = await import('@inquirer/prompts');
        return input({ message: 'Collection name', required: true });
      }));
    const c = await (await ctx.client()).collections.create({
      name,
      ...(opts.description !== undefined ? { description: opts.description } : {}),
      ...(opts.isPublic ? { is_public: true } : {}),
    });
    ctx.out.result(c, () => {
      ctx.out.line(`${ctx.out.green('✓')} Created collection ${ctx.out.bold(c.name)} (slug ${ctx.out.cyan(c.slug)}).`);
      showCollection(ctx.out, c);
    });
  },
});
