import type { Collection } from '@docsift/sdk';
import { defineCommand } from '../../command.js';
import type { Output } from '../../output.js';

export function collectionTable(o: Output, rows: Collection[]): void {
  o.table(
    rows,
    [
      { header: 'NAME', value: (c) => c.name, max: 40 },
      { header: 'SLUG', value: (c) => c.slug, style: (t) => o.cyan(t) },
      { header: 'DOCS', value: (c) => String(c.document_count), align: 'right' },
      { header: 'CHUNKS', value: (c) => String(c.total_chunks), align: 'right' },
      { header: 'ACCESS', value: (c) => (c.is_subscribed ? 'subscribed' : c.is_public ? 'public' : 'private') },
      { header: 'UUID', value: (c) => c.uuid, style: (t) => o.dim(t) },
    ],
    'No collections yet. Create one: docsift collections create <name>',
  );
}

export default defineCommand<Record<string, never>>({
  name: 'list',
  aliases: ['ls'],
  summary: 'Collections this key can see (owned and subscribed)',
  help: `Examples:
  docsift collections list
  docsift collections list --json | jq -r '.[].slug'`,
  parse: () => ({}),
  async run(ctx) {
    const rows = await (await ctx.client()).collections.list();
    ctx.out.result(rows, () => collectionTable(ctx.out, rows));
  },
});
