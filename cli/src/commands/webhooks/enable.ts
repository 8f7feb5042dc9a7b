import { defineCommand } from '../../command.js';
import { reportWebhook } from './show-config.js';

export const toggle = (active: boolean) =>
  defineCommand<Record<string, never>>({
    name: active ? 'enable' : 'disable',
    summary: active ? 'Resume deliveries' : 'Pause deliveries (new events are not queued; test and redeliver still send)',
    help: `Examples:\n  docsift webhooks ${active ? 'enable' : 'disable'}\n  docsift webhooks ${active ? 'enable' : 'disable'} --json`,
    parse: () => ({}),
    async run(ctx) {
      const w = await (await ctx.client()).webhooks.update({ is_active: active });
      await reportWebhook(ctx, w, active ? 'Webhook enabled.' : 'Webhook disabled.');
    },
  });

export default toggle(true);
