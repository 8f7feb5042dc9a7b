import type { UsageStats } from '@docsift/sdk';
import { defineCommand, intFlag } from '../../command.js';
import { formatDate } from '../../output.js';
import { resolveKey } from '../../resolve.js';
import { dailyChart } from '../../ui/chart.js';

interface Options {
  days: number;
  key: string | undefined;
  recent: number;
}

const n = (v: number) => v.toLocaleString('en-US');

export default defineCommand<Options>({
  name: 'usage',
  summary: 'Usage report: totals, daily volume chart, per-key breakdown and recent requests',
  help: `Full-access keys see the whole organization; scoped keys see their own user.

Examples:
  docsift usage --days 30
  docsift usage --key ci-uploader --recent 50
  docsift usage --json | jq '.daily'`,
  options: (cmd) =>
    cmd
      .option('-d, --days <n>', 'period in days, 1–90 (7, 30 and 90 are usual)', '7')
      .option('-k, --key <key>', 'one key only (uuid, prefix or name)')
      .option('--recent <n>', 'recent requests to list, 1–100', '10'),
  parse: (_a, flags) => ({
    days: intFlag(flags.days, '--days', { max: 90 })!,
    key: typeof flags.key === 'string' ? flags.key : undefined,
    recent: intFlag(flags.recent, '--recent', { max: 100 })!,
  }),
  async run(ctx, opts) {
    const client = await ctx.client();
    const key = opts.key ? await resolveKey(ctx, opts.key) : undefined;
    const params = { days: opts.days, recent_limit: opts.recent };
    const r: UsageStats = key ? await client.usage.forKey(key.uuid, params) : await client.usage.get(params);
    ctx.out.result(r, () => {
      const o = ctx.out;
      o.line(o.bold(`Usage ${r.from} – ${r.to} (${r.days} days)${key ? `, key ${key.name} (${key.prefix}…)` : ''}`));
      o.fields([
        ['Requests', n(r.total_requests)],
        ['Errors', `${n(r.error_count)}${r.total_requests ? ` (${((r.error_count / r.total_requests) * 100).toFixed(1)} %)` : ''}`],
        ['Avg response', `${r.avg_response_time_ms.toFixed(1)} ms`],
      ]);
      o.line();
      o.line(o.bold('Daily requests'));
      for (const line of dailyChart(r.daily, 40, { bar: o.cyan, err: o.red, dim: o.dim })) o.line(line);
      if (!key) {
        o.line();
        o.line(o.bold('Per key'));
        o.table(
          r.per_key,
          [
            { header: 'NAME', value: (k) => k.name, max: 30 },
            { header: 'PREFIX', value: (k) => k.prefix },
            { header: 'REQUESTS', value: (k) => n(k.requests), align: 'right' },
            { header: 'ERRORS', value: (k) => n(k.errors), align: 'right' },
            { header: 'AVG MS', value: (k) => k.avg_response_time_ms.toFixed(1), align: 'right' },
          ],
          'No key was used in this period.',
        );
      }
      o.line();
      o.line(o.bold('Recent requests'));
      o.table(
        r.recent.items,
        [
          { header: 'WHEN', value: (e) => formatDate(e.timestamp) },
          { header: 'KEY', value: (e) => e.key_prefix },
          { header: 'REQUEST', value: (e) => `${e.method} ${e.endpoint}`, max: 44 },
          { header: 'STATUS', value: (e) => String(e.status), style: (t, e) => (e.status >= 400 ? o.red(t) : t) },
          { header: 'MS', value: (e) => e.response_time_ms.toFixed(0), align: 'right' },
          { header: 'RESULTS', value: (e) => (e.result_count === null ? '' : String(e.result_count)), align: 'right' },
          { header: 'QUERY', value: (e) => e.query ?? '', max: 40 },
        ],
        'No requests in this period.',
      );
    });
  },
});
