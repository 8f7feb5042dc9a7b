import { defineCommand } from '../../command.js';
import { formatDate } from '../../output.js';

export const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export default defineCommand<Record<string, never>>({
  name: 'plan',
  summary: 'Plan, current billing cycle, searches used and projected bill (full-access keys)',
  help: `Examples:
  docsift billing plan
  docsift billing plan --json | jq .used_queries`,
  parse: () => ({}),
  async run(ctx) {
    const p = await (await ctx.client()).billing.plan();
    ctx.out.result(p, () => {
      const o = ctx.out;
      o.fields([
        ['Plan', `${p.name} (${dollars(p.price_cents)}/month)`],
        ['Cycle', `${formatDate(p.cycle_start)} → ${formatDate(p.cycle_end)}`],
        ['Searches', `${p.used_queries.toLocaleString('en-US')} of ${p.included_queries.toLocaleString('en-US')} included`],
        [
          'Overage',
          p.overage_rate_millicents === null
            ? p.hard_quota
              ? 'none: searches stop at the quota until the next cycle'
              : '—'
            : `${p.overage_queries.toLocaleString('en-US')} searches, ${dollars(p.overage_cents)} so far`,
        ],
        ['Projected', `${p.projected_queries.toLocaleString('en-US')} searches, ${dollars(p.projected_total_cents)} total`],
      ]);
    });
  },
});
