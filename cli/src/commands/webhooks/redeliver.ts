import { defineCommand } from '../../command.js';

export default defineCommand<{ id: string }>({
  name: 'redeliver <delivery-id>',
  summary: "Send a delivery's event again now (same event id, fresh signature)",
  help: `Examples:
  docsift webhooks redeliver 7b1e9c40-2d3f-4a5b-8c6d-0e1f2a3b4c5d`,
  parse: ([id]) => ({ id: id! }),
  async run(ctx, { id }) {
    const d = await (await ctx.client()).webhooks.redeliver(id);
    ctx.out.result(d, () =>
      ctx.out.line(
        `${d.success ? ctx.out.green('✓') : ctx.out.red('✗')} Redelivered ${d.event_type} (attempt ${d.attempt}): ${d.status_code === null ? 'no HTTP answer' : `HTTP ${d.status_code}`} in ${d.duration_ms} ms${d.error ? ` — ${d.error}` : ''}.`,
      ),
    );
    return d.success ? 0 : 1;
  },
});
