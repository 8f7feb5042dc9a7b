import { defineCommand, intFlag } from '../../command.js';
import { formatDate } from '../../output.js';
import { dollars } from './plan.js';

export default defineCommand<{ limit: number }>({
  name: 'invoices',
  summary: 'Invoices of the organization, newest cycle first (full-access keys)',
  help: `Examples:
  docsift billing invoices
  docsift billing invoices --limit 3 --json`,
  options: (cmd) => cmd.option('-n, --limit <n>', 'show at most this many', '12'),
  parse: (_a, flags) => ({ limit: intFlag(flags.limit, '--limit', { max: 1000 })! }),
  async run(ctx, { limit }) {
    const rows = await (await ctx.client()).billing.invoices({ limit: Math.min(100, limit) }).toArray(limit);
    ctx.out.result(rows, () => {
      ctx.out.table(
        rows,
        [
          { header: 'PERIOD', value: (i) => `${formatDate(i.period_start).slice(0, 10)} → ${formatDate(i.period_end).slice(0, 10)}` },
          { header: 'PLAN', value: (i) => i.plan },
          { header: 'SEARCHES', value: (i) => i.used_queries.toLocaleString('en-US'), align: 'right' },
          { header: 'OVERAGE', value: (i) => dollars(i.overage_cents), align: 'right' },
          { header: 'TOTAL', value: (i) => dollars(i.total_cents), align: 'right' },
          { header: 'STATUS', value: (i) => i.status },
          { header: 'UUID', value: (i) => i.uuid, style: (t) => ctx.out.dim(t) },
        ],
        'No invoices yet: one is produced when a billing cycle ends.',
      );
    });
  },
});
