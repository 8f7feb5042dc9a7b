import { defineCommand } from '../../command.js';

export default defineCommand<{ uuid: string }>({
  name: 'reprocess <uuid>',
  summary: 'Queue a document for processing again (e.g. after a failure)',
  help: `Examples:
  docsift docs reprocess 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f
  docsift docs list --status failed --json | jq -r '.[].uuid' | xargs -n1 docsift docs reprocess`,
  parse: ([uuid]) => ({ uuid: uuid! }),
  async run(ctx, { uuid }) {
    const d = await (await ctx.client()).documents.reprocess(uuid);
    ctx.out.result(d, () => ctx.out.line(`Queued ${d.title} (${d.uuid}); status ${d.status}.`));
  },
});
