import type { Collection } from '@docsift/sdk';
import { defineCommand } from '../../command.js';
import { formatDate, type Output } from '../../output.js';
import { resolveCollection } from '../../resolve.js';

export function showCollection(o: Output, c: Collection): void {
  o.fields([
    ['Name', o.bold(c.name)],
    ['Slug', c.slug],
    ['UUID', c.uuid],
    ['Description', c.description],
    ['Documents', c.document_count],
    ['Chunks', c.total_chunks],
    ['Language', c.language],
    ['Public', c.is_public ? 'yes' : 'no'],
    ['Subscribed', c.is_subscribed ? 'yes' : 'no'],
    ['Created', formatDate(c.created_at)],
  ]);
}

export default defineCommand<{ ref: string | undefined }>({
  name: 'show [collection]',
  summary: 'Details of one collection (uuid, slug or name)',
  help: `Examples:
  docsift collections show research-papers
  docsift collections show "Research papers" --json`,
  parse: ([ref]) => ({ ref }),
  async run(ctx, { ref }) {
    const c = await resolveCollection(ctx, ref, '<collection>');
    ctx.out.result(c, () => showCollection(ctx.out, c));
  },
});
