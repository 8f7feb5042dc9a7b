import { defineCommand } from '../../command.js';
import { reportWebhook } from './show-config.js';

export default defineCommand<{ url: string }>({
  name: 'set <url>',
  summary: 'Create the webhook (prints its signing secret once) or change its URL',
  help: `Events: document.indexed, document.failed (and webhook.test). Deliveries are signed with
X-Service-Signature: sha256=HMAC(secret, "{X-Service-Timestamp}.{raw body}").
The server refuses private and loopback URLs unless it runs with ALLOW_PRIVATE_URLS=true.

Examples:
  docsift webhooks set https://example.com/hooks/docsift
  docsift webhooks set https://example.com/hooks/docsift && docsift webhooks test`,
  parse: ([url]) => ({ url: url! }),
  async run(ctx, { url }) {
    const w = await (await ctx.client()).webhooks.set(url);
    await reportWebhook(
      ctx,
      w,
      'secret' in w ? `${ctx.out.green('✓')} Webhook created.` : `${ctx.out.green('✓')} Webhook URL updated (secret unchanged).`,
    );
  },
});
