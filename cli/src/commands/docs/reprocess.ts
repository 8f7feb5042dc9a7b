import { defineCommand } from '../../command.js';

export default defineCommand<{ uuid: string }>({
  name: 'reprocess <uuid>',
  summary: 'Queue a document for processing again (e.g. after a failure)',
  parse: ([uuid]) => ({ uuid: uuid! }),
  async run(ctx, { uuid }) {
    const d = await (await ctx.client()).documents.reprocess(uuid);
    ctx.out.result(d, () => ctx.out.line(`Queued ${d.title} (${d.uuid}); status ${d.status}.`));
  },
});
