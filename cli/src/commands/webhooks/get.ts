import { defineCommand } from '../../command.js';
import { reportWebhook } from './show-config.js';

export default defineCommand<Record<string, never>>({
  name: 'get',
  aliases: ['show'],
  summary: "The organization's webhook (URL and whether it is active; never the secret)",
  help: `Examples:
  docsift webhooks get
  docsift webhooks get --json`,
  parse: () => ({}),
  async run(ctx) {
    const w = await (await ctx.client()).webhooks.get();
    if (w.configured) await reportWebhook(ctx, w, 'Webhook:');
    else ctx.out.result(w, () => ctx.out.line('No webhook configured. Set one: docsift webhooks set <url>'));
  },
});
