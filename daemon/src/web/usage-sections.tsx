// The sections of the usage page (usage-page.tsx): totals, plan, per-key table, request log, invoices.
import type { FC } from 'hono/jsx';
import type { listInvoices } from '../billing/invoices.js';
import type { planSummary } from '../billing/summary.js';
import type { usageReport } from '../usage/queries.js';
import { count, date, dateTime, money, ms, percent, ratePerQuery, truncate } from './format.js';
import { Badge, ColumnHeads } from './layout.js';
import { SESSION_KEY_ID, WEB_SEARCH_ENDPOINT } from './metering.js';

export type Report = Awaited<ReturnType<typeof usageReport>>;
export type Plan = Awaited<ReturnType<typeof planSummary>>;
export type Invoice = Awaited<ReturnType<typeof listInvoices>>[number];

export const Stat: FC<{ label: string; value: string; sub?: string; id: string }> = ({ label, value, sub, id }) => (
  <section class="card stat" aria-labelledby={`${id}-label`}>
    <span class="label" id={`${id}-label`}>
      {label}
    </span>
    <span class="value" id={id}>
      {value}
    </span>
    {sub ? <span class="sub">{sub}</span> : null}
  </section>
);

export const PlanCard: FC<{ plan: Plan }> = ({ plan }) => {
  const over = plan.used_queries > plan.included_queries;
  return (
    <section class="card" aria-labelledby="plan-title">
      <div class="section-head">
        <h2 id="plan-title">Plan: {plan.name}</h2>
        <span class="muted">{money(plan.price_cents)} / month</span>
      </div>
      <label for="quota-progress">
        {count(plan.used_queries)} of {count(plan.included_queries)} included searches used (
        {percent(plan.used_queries, plan.included_queries)})
      </label>
      <progress
        id="quota-progress"
        class={over ? 'quota over' : 'quota'}
        max={plan.included_queries}
        value={Math.min(plan.used_queries, plan.included_queries)}
      >
        {percent(plan.used_queries, plan.included_queries)}
      </progress>
      <dl class="facts">
        <dt>Billing cycle</dt>
        <dd>
          {date(plan.cycle_start)} to {date(plan.cycle_end)}
        </dd>
        <dt>Overage rate</dt>
        <dd>{ratePerQuery(plan.overage_rate_millicents)}</dd>
        <dt>Overage so far</dt>
        <dd>
          {count(plan.overage_queries)} searches · {money(plan.overage_cents)}
        </dd>
        <dt>Projected searches</dt>
        <dd>{count(plan.projected_queries)} by cycle end</dd>
        <dt>Projected overage</dt>
        <dd id="projected-overage">{money(plan.projected_overage_cents)}</dd>
        <dt>Projected total</dt>
        <dd>{money(plan.projected_total_cents)}</dd>
      </dl>
      {plan.hard_quota ? (
        <p class="muted section">The Free plan has a hard quota: once it is used, searches answer 429 until the next cycle.</p>
      ) : null}
    </section>
  );
};

export const PerKey: FC<{ report: Report; total: number }> = ({ report, total }) => (
  <section class="card" aria-labelledby="per-key-title">
    <h2 id="per-key-title">By key</h2>
    <div class="table-wrap section">
      <table class="stack">
        <ColumnHeads cols={['Key', ['Requests', 'num'], ['Share', 'num'], ['Errors', 'num'], ['Avg time', 'num']]} />
        <tbody>
          {report.per_key.length === 0 ? (
            <tr>
              <td colspan={5} class="empty">
                No keys.
              </td>
            </tr>
          ) : null}
          {report.per_key.map((k) => (
            <tr>
              <td data-label="Key">
                <strong>{k.name}</strong> <code class="muted">{k.prefix}…</code>
              </td>
              <td data-label="Requests" class="num">
                {count(k.requests)}
              </td>
              <td data-label="Share" class="num">
                {percent(k.requests, total)}
              </td>
              <td data-label="Errors" class="num">
                {count(k.errors)}
              </td>
              <td data-label="Avg time" class="num">
                {ms(k.avg_response_time_ms)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </section>
);

export const RecentLog: FC<{ report: Report; days: number; cursor?: string }> = ({ report, days, cursor }) => (
  <section class="section" aria-labelledby="log-title" id="log">
    <div class="section-head">
      <h2 id="log-title">Recent requests</h2>
      <span class="muted">newest first</span>
    </div>
    <div class="table-wrap">
      <table class="stack">
        <ColumnHeads cols={['Time', 'Key', 'Request', 'Query', ['Results', 'num'], ['Time', 'num'], ['Status', 'num']]} />
        <tbody>
          {report.recent.items.length === 0 ? (
            <tr>
              <td colspan={7} class="empty">
                No requests in this period.
              </td>
            </tr>
          ) : null}
          {report.recent.items.map((r) => (
            <tr>
              <td data-label="Time" class="muted">
                <time datetime={new Date(r.timestamp).toISOString()}>{dateTime(r.timestamp)}</time>
              </td>
              <td data-label="Key">
                {r.key_uuid === SESSION_KEY_ID ? <span class="muted">web UI</span> : <code>{r.key_prefix || '—'}</code>}
              </td>
              <td data-label="Request">
                <span class="mono">
                  {r.method} {r.endpoint}
                </span>
              </td>
              <td data-label="Query">
                {r.query !== null ? (
                  `“${truncate(r.query, 80)}”`
                ) : r.endpoint === '/api/v1/search' || r.endpoint === WEB_SEARCH_ENDPOINT ? (
                  <span class="muted" title="Another member's search: its text is shown to organization owners and admins">
                    hidden
                  </span>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              <td data-label="Results" class="num">
                {r.result_count ?? '—'}
              </td>
              <td data-label="Time" class="num">
                {ms(r.response_time_ms)}
              </td>
              <td data-label="Status" class="num">
                <span class={`status-code ${r.status >= 400 ? 'err' : 'okc'}`}>{r.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    <nav class="pager" aria-label="Request log pages">
      {cursor ? <a href={`/app/usage?days=${days}#log`}>← Newest</a> : <span />}
      {report.recent.next_cursor ? (
        <a href={`/app/usage?days=${days}&cursor=${encodeURIComponent(report.recent.next_cursor)}#log`}>Older requests →</a>
      ) : null}
    </nav>
  </section>
);

const INVOICE_TONE = { recorded: 'neutral', sent: 'ok', pending: 'warn', failed: 'danger' } as const;

export const Invoices: FC<{ invoices: Invoice[] }> = ({ invoices }) => (
  <section class="section" aria-labelledby="invoices-title">
    <div class="section-head">
      <h2 id="invoices-title">Invoices</h2>
    </div>
    <div class="table-wrap">
      <table class="stack">
        <ColumnHeads cols={['Period', 'Plan', ['Searches', 'num'], ['Overage', 'num'], ['Total', 'num'], 'Status']} />
        <tbody>
          {invoices.length === 0 ? (
            <tr>
              <td colspan={6} class="empty">
                No invoices yet: one is produced when each billing cycle ends.
              </td>
            </tr>
          ) : null}
          {invoices.map((i) => (
            <tr>
              <td data-label="Period">
                {date(i.period_start)} to {date(i.period_end)}
              </td>
              <td data-label="Plan">{i.plan}</td>
              <td data-label="Searches" class="num">
                {count(i.used_queries)} / {count(i.included_queries)}
              </td>
              <td data-label="Overage" class="num">
                {count(i.overage_queries)} · {money(i.overage_cents, i.currency)}
              </td>
              <td data-label="Total" class="num">
                <strong>{money(i.total_cents, i.currency)}</strong>
              </td>
              <td data-label="Status">
                <Badge tone={INVOICE_TONE[i.status]}>{i.status}</Badge>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </section>
);
