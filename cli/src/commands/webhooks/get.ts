import { defineCommand } from '../../command.js';
import { reportWebhook } from './show-config.js';

export default defineCommand<Record<string, never>>({
  name: 'get',
  aliases: ['show'],
  summary: "The organization's webhook (URL and whether it is active; never the secret)",
  parse: () => ({}),
  async run(ctx) {
    const w = await (await ctx.client()).webhooks.get();
    if (!w.configured && !ctx.json) return void ctx.out.line('No webhook configured. Set one: docsift webhooks set <url>');
    await reportWebhook(ctx, w, w.configured ? 'Webhook:' : 'No webhook configured.');
  },
});
