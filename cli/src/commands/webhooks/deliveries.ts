import type { WebhookDelivery } from '@docsift/sdk';
import { defineCommand, intFlag, stringFlag } from '../../command.js';
import { formatDate } from '../../output.js';

export default defineCommand<{ limit: number; eventId: string | undefined }>({
  name: 'deliveries',
  summary: 'Delivery attempts, newest first: event, attempt, status code, duration, error',
  help: `Examples:
  docsift webhooks deliveries
  docsift webhooks deliveries --limit 50 --json | jq '.[] | select(.success | not)'`,
  options: (cmd) => cmd.option('-n, --limit <n>', 'show at most this many', '20').option('--event <id>', 'only the attempts of this event'),
  parse: (_a, flags) => ({ limit: intFlag(flags.limit, '--limit', { max: 10_000 })!, eventId: stringFlag(flags.event) }),
  async run(ctx, { limit, eventId }) {
    const rows = await (await ctx.client()).webhooks
      .deliveries({ limit: Math.min(200, limit), ...(eventId ? { event_id: eventId } : {}) })
      .toArray(limit);
    ctx.out.result(rows, () => {
      const o = ctx.out;
      o.table(
        rows,
        [
          { header: 'WHEN', value: (d: WebhookDelivery) => formatDate(d.created_at) },
          { header: 'EVENT', value: (d) => d.event_type },
          { header: 'TRY', value: (d) => String(d.attempt), align: 'right' },
          { header: 'TRIGGER', value: (d) => d.trigger },
          { header: 'RESULT', value: (d) => (d.success ? 'ok' : 'failed'), style: (t, d) => (d.success ? o.green(t) : o.red(t)) },
          { header: 'HTTP', value: (d) => (d.status_code === null ? '—' : String(d.status_code)), align: 'right' },
          { header: 'MS', value: (d) => String(d.duration_ms), align: 'right' },
          { header: 'ERROR', value: (d) => d.error ?? '', max: 40 },
          { header: 'ID', value: (d) => d.id, style: (t) => o.dim(t) },
        ],
        'No deliveries yet.',
      );
    });
  },
});
