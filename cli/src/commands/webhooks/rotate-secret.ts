import { defineCommand } from '../../command.js';
import { reportWebhook } from './show-config.js';

export default defineCommand<Record<string, never>>({
  name: 'rotate-secret',
  summary: 'Replace the signing secret now (prints the new one once)',
  help: `Examples:
  docsift webhooks rotate-secret
  docsift webhooks rotate-secret --json | jq -r .secret`,
  parse: () => ({}),
  async run(ctx) {
    const w = await (await ctx.client()).webhooks.rotateSecret();
    await reportWebhook(ctx, w, `${ctx.out.green('✓')} New signing secret; every delivery from now on uses it.`);
  },
});
