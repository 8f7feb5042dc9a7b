import { defineCommand } from '../../command.js';
import { confirmOrYes } from '../../resolve.js';

export default defineCommand<{ yes: boolean }>({
  name: 'delete',
  aliases: ['rm'],
  summary: 'Delete the webhook: nothing more is delivered (asks first unless --yes)',
  help: `Examples:
  docsift webhooks delete
  docsift webhooks delete --yes`,
  options: (cmd) => cmd.option('-y, --yes', 'do not ask for confirmation'),
  parse: (_a, flags) => ({ yes: !!flags.yes }),
  async run(ctx, { yes }) {
    if (!(await confirmOrYes(ctx, yes, 'Delete the webhook? Pending deliveries stop.'))) return 1;
    const r = await (await ctx.client()).webhooks.delete();
    ctx.out.result(r, () => ctx.out.line(r.deleted ? 'Webhook deleted.' : 'There was no webhook.'));
  },
});
