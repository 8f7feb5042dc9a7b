import { defineCommand, stringFlag } from '../../command.js';
import { showCollection } from './show.js';

interface Options {
  name: string | undefined;
  description: string | undefined;
  isPublic: boolean;
  language: string | undefined;
}

export default defineCommand<Options>({
  name: 'create [name]',
  summary: 'Create a collection (private unless --public)',
  help: 'Examples:\n  docsift collections create "Research papers" --description "2024 reading list"\n  docsift collections create "Manuel" --language french\n  docsift collections create "资料" --language chinese\n  docsift collections create "Source" --language simple',
  options: (cmd) =>
    cmd
      .option('-d, --description <text>', 'description')
      .option('--public', 'let other users subscribe to it')
      .option(
        '--language <config>',
        'text search language: english (default), french, german, … chinese, japanese, korean, thai, or simple for code (docsift collections languages)',
      ),
  parse: ([name], flags) => ({
    name,
    description: stringFlag(flags.description),
    isPublic: !!flags.public,
    language: stringFlag(flags.language),
  }),
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
      ...(opts.language !== undefined ? { language: opts.language } : {}),
    });
    ctx.out.result(c, () => {
      ctx.out.line(`${ctx.out.green('✓')} Created collection ${ctx.out.bold(c.name)} (slug ${ctx.out.cyan(c.slug)}).`);
      showCollection(ctx.out, c);
    });
  },
});
