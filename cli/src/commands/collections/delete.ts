import { defineCommand } from '../../command.js';
import { resolveCollection, confirmOrYes } from '../../resolve.js';

export default defineCommand<{ ref: string; yes: boolean }>({
  name: 'delete <collection>',
  aliases: ['rm'],
  summary: 'Delete a collection and its documents (owner only; asks first unless --yes)',
  help: `Examples:
  docsift collections delete research-papers
  docsift collections delete old-notes --yes   # no question (scripts)`,
  options: (cmd) => cmd.option('-y, --yes', 'do not ask for confirmation'),
  parse: ([ref], flags) => ({ ref: ref!, yes: !!flags.yes }),
  async run(ctx, { ref, yes }) {
    const c = await resolveCollection(ctx, ref);
    if (!(await confirmOrYes(ctx, yes, `Delete "${c.name}" and its ${c.document_count} documents?`))) return 1;
    await (await ctx.client()).collections.delete(c.uuid);
    ctx.out.result({ uuid: c.uuid, slug: c.slug, deleted: true }, () =>
      ctx.out.line(`Deleted collection ${c.name} (${c.slug}). Its search entries are gone; stored files are purged after 7 days.`),
    );
  },
});
