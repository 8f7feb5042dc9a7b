import { defineCommand } from '../../command.js';

export default defineCommand<Record<string, never>>({
  name: 'languages',
  summary: 'The languages a collection may have (--language of create and update)',
  help: `Examples:
  docsift collections languages
  docsift collections languages --json | jq -r '.languages[] | select(.kind == "segmented") | .name'`,
  parse: () => ({}),
  async run(ctx) {
    const list = await (await ctx.client()).collections.languages();
    ctx.out.result(list, () => {
      ctx.out.table(
        list.languages,
        [
          { header: 'LANGUAGE', value: (l) => (l.name === list.default ? `${l.name} (default)` : l.name) },
          { header: 'INDEXED WITH', value: (l) => KINDS[l.kind] ?? l.kind },
        ],
        'No languages.',
      );
    });
  },
});

const KINDS: Record<string, string> = {
  stemmer: 'stemming and stop words',
  segmented: 'word segmentation (written without spaces)',
  simple: 'words as written, lowercased',
  custom: "the operator's own configuration",
};
