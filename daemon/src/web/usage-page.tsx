import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { listInvoices } from '../billing/invoices.js';
import { planSummary } from '../billing/summary.js';
import { AppError } from '../errors.js';
import { logViewer, usageReport } from '../usage/queries.js';
import type { AppDeps } from '../types.js';
import { ChartTable, VolumeChart } from './chart.js';
import { page, type WebEnv } from './context.js';
import { count, ms, percent } from './format.js';
import { Layout, PageHead } from './layout.js';

const PERIODS = [7, 30, 90] as const;
const LOG_PAGE = 25;

import { Invoices, PerKey, PlanCard, RecentLog, Stat, type Invoice, type Plan, type Report } from './usage-sections.js';

const UsageView: FC<{ session: Session; report: Report; plan: Plan; invoices: Invoice[]; cursor?: string }> = ({
  session,
  report,
  plan,
  invoices,
  cursor,
}) => (
  <Layout title="Usage" session={session} active="usage">
    <PageHead title="Usage" lead={`All API keys of your organization, ${report.from} to ${report.to} (UTC days).`}>
      <nav class="segmented" aria-label="Period">
        {PERIODS.map((d) => (
          <a href={`/app/usage?days=${d}`} aria-current={d === report.days ? 'true' : undefined}>
            {d} days
          </a>
        ))}
      </nav>
    </PageHead>
    <div class="grid cols-3">
      <Stat
        id="total-requests"
        label="Total requests"
        value={count(report.total_requests)}
        sub={`${count(Math.round(report.total_requests / report.days))} per day on average`}
      />
      <Stat
        id="error-count"
        label="Errors"
        value={count(report.error_count)}
        sub={`${percent(report.error_count, report.total_requests)} of requests (status 400 and above)`}
      />
      <Stat id="avg-response" label="Avg response time" value={ms(report.avg_response_time_ms)} sub="server time per request" />
    </div>
    <section class="card section" aria-labelledby="chart-heading">
      <div class="section-head">
        <h2 id="chart-heading">Daily volume</h2>
        <div class="legend" aria-hidden="true">
          <span>
            <span class="swatch requests"></span>Requests
          </span>
          <span>
            <span class="swatch errors"></span>Errors
          </span>
        </div>
      </div>
      <VolumeChart daily={report.daily} id="volume-chart" />
      <p class="chart-readout" id="volume-chart-readout" aria-live="polite">
        Hover or focus a day (arrow keys move) to see its figures.
      </p>
      <ChartTable daily={report.daily} />
    </section>
    <div class="grid cols-2 usage-split section">
      <PlanCard plan={plan} />
      <PerKey report={report} total={report.total_requests} />
    </div>
    <RecentLog report={report} days={report.days} cursor={cursor} />
    <Invoices invoices={invoices} />
  </Layout>
);

export function registerUsagePage(web: Hono<WebEnv>, deps: AppDeps): void {
  web.get('/usage', async (c) => {
    const caller = c.get('webCaller');
    const days = PERIODS.find((d) => String(d) === c.req.query('days')) ?? 30;
    const cursor = c.req.query('cursor') || undefined;
    const now = deps.clock.now();
    let report: Report;
    try {
      const viewer = await logViewer(deps.sql, caller.userId);
      report = await usageReport(deps.sql, { kind: 'org', id: caller.orgId }, { days, now, recentLimit: LOG_PAGE, cursor, viewer });
    } catch (err) {
      // A mangled cursor in the address bar: show the newest page instead of an error.
      if (!(err instanceof AppError) || !cursor) throw err;
      return c.redirect(`/app/usage?days=${days}`, 303);
    }
    const [plan, invoices] = await Promise.all([
      planSummary(deps.sql, caller.orgId, now),
      listInvoices(deps.sql, { orgId: caller.orgId, limit: 12 }),
    ]);
    return page(c, <UsageView session={c.get('session')!} report={report} plan={plan} invoices={invoices} cursor={cursor} />);
  });
}
