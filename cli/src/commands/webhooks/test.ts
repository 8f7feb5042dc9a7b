import { defineCommand } from '../../command.js';

export default defineCommand<Record<string, never>>({
  name: 'test',
  summary: "Send a signed webhook.test event now and report the receiver's answer",
  help: `Examples:
  docsift webhooks test
  docsift webhooks test --json | jq .status_code`,
  parse: () => ({}),
  async run(ctx) {
    const client = await ctx.client();
    const r = await client.webhooks.test();
    ctx.out.result(r, () =>
      ctx.out.line(`${ctx.out.green('✓')} Delivered webhook.test: HTTP ${r.status_code} in ${r.duration_ms} ms (event ${r.event_id}).`),
    );
  },
});
