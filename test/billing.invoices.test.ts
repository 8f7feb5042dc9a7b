// Invoices: a closed cycle is billed from the request log (plan fee + overage, integer cents),
// exactly once, at the plan in force when it ended; listed by the API and the admin CLI. The
// clock is moved with the CLOCK_OFFSET_MS setting.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../daemon/src/admin-registry.js';
import { closeInvoices } from '../daemon/src/billing/invoices.js';
import { setPlan } from '../daemon/src/billing/org-plan.js';
import { cycleAt } from '../daemon/src/billing/plans.js';
import { closeInvoicesTask } from '../daemon/src/billing/close-invoices-job.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const DAY = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

describe('invoices', () => {
  const now = Date.now();
  const anchor = new Date(now - 45 * DAY);
  const c0 = cycleAt(anchor, anchor); // ended 10–15 days ago
  let past: TestDaemon; // clock 40 days back: inside c0
  let d: TestDaemon; // clock now
  let req: ReturnType<typeof http>;
  let starter: Tenant;
  let free: Tenant;

  async function admin(args: string[]) {
    const out = new PassThrough();
    const err = new PassThrough();
    let o = '';
    let e = '';
    out.on('data', (b) => (o += b));
    err.on('data', (b) => (e += b));
    const code = await runAdmin({ sql: d.deps.sql, config: d.config, clock: d.deps.clock, out, err }, args);
    return { code, out: o, err: e };
  }
  const billing = () => ({ sql: d.deps.sql, clock: d.deps.clock, logger: d.deps.logger, stripe: null });

  before(async () => {
    d = await startTestDaemon({ label: 'invoices' });
    past = await startTestDaemon({ label: 'invoicespast', db: d.db, env: { CLOCK_OFFSET_MS: String(-40 * DAY) } });
    req = http(d.url);
    starter = await createTenant(d, 'inv-starter');
    free = await createTenant(d, 'inv-free');
    for (const tn of [starter, free]) await d.deps.sql`update organizations set billing_cycle_anchor = ${anchor} where id = ${tn.orgId}`;
    // On Starter from a day after the anchor (the change is recorded at that time).
    await setPlan(d.deps.sql, starter.orgId, 'starter', new Date(anchor.getTime() + DAY));

    // Real traffic inside c0, through the past daemon: 5 REST and 2 MCP searches, a failed
    // search and some other requests. Only the 7 successful searches are billable.
    const pr = http(past.url);
    for (let i = 0; i < 5; i++)
      assert.equal((await pr('POST', '/api/v1/search/', { key: starter.key, json: { query: `question ${i}` } })).status, 200);
    for (let i = 0; i < 2; i++) {
      const r = await pr('POST', '/mcp', {
        key: starter.key,
        headers: { accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'search_documents', arguments: { query: `mcp ${i}` } } },
      });
      assert.equal(r.status, 200);
    }
    assert.equal((await pr('POST', '/api/v1/search/', { key: starter.key, json: { query: 'x', collection: 'missing' } })).status, 404);
    await pr('GET', '/api/v1/collections/', { key: starter.key });
    await pr('POST', '/api/v1/search/', { key: free.key, json: { query: 'free search' } });
    await past.deps.usageLog.flush();
    // Bulk usage of another day of c0 (as the rollups would hold it), and usage after c0 that must not count.
    await d.deps.sql`
      insert into usage_daily (key_id, day, organization_id, user_id, requests, errors, total_duration_us, searches, billable_searches)
      values (gen_random_uuid(), ${isoDay(new Date(c0.end.getTime() - DAY))}::date, ${starter.orgId}, ${starter.userId}, 10500, 0, 0, 10500, 10500),
             (gen_random_uuid(), ${isoDay(c0.end)}::date, ${starter.orgId}, ${starter.userId}, 99, 0, 0, 99, 99),
             (gen_random_uuid(), ${isoDay(new Date(c0.start.getTime() - DAY))}::date, ${starter.orgId}, ${starter.userId}, 77, 0, 0, 77, 77)`;
    // Upgraded to Pro after c0 ended but before the closing job ran: c0 is still billed as Starter.
    await setPlan(d.deps.sql, starter.orgId, 'pro', new Date(c0.end.getTime() + 60_000));
  });
  after(async () => {
    await past?.close();
    await d?.close();
  });

  it('the closing job bills the ended cycle from the request log: fee + overage in integer cents', async () => {
    const { n: logged } = (
      await d.deps.sql<{ n: number }[]>`
      select count(*)::int as n from request_log where organization_id = ${starter.orgId} and billable and ts >= ${c0.start} and ts < ${c0.end}`
    )[0]!;
    assert.equal(logged, 7);
    await closeInvoicesTask(d.deps)(undefined, {} as never);
    const list = await req('GET', '/api/v1/billing/invoices/', { key: starter.key });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.items.length, 1, 'only c0 has ended');
    const inv = list.body.items[0];
    assert.deepEqual(
      {
        period_start: inv.period_start,
        period_end: inv.period_end,
        plan: inv.plan,
        plan_fee_cents: inv.plan_fee_cents,
        included_queries: inv.included_queries,
        used_queries: inv.used_queries,
        overage_queries: inv.overage_queries,
        overage_rate_millicents: inv.overage_rate_millicents,
        overage_cents: inv.overage_cents,
        total_cents: inv.total_cents,
        status: inv.status,
        processor: inv.processor,
        currency: inv.currency,
      },
      {
        period_start: c0.start.toISOString(),
        period_end: c0.end.toISOString(),
        plan: 'starter',
        plan_fee_cents: 2900,
        included_queries: 10_000,
        // 10,500 + 7 searches; 507 over at 0.2 ¢ = 101.4 ¢ → 101 ¢.
        used_queries: 10_507,
        overage_queries: 507,
        overage_rate_millicents: 200,
        overage_cents: 101,
        total_cents: 3001,
        status: 'recorded',
        processor: 'local',
        currency: 'usd',
      },
    );
    const f = await req('GET', '/api/v1/billing/invoices/', { key: free.key });
    assert.equal(f.body.items.length, 1);
    assert.deepEqual(
      [f.body.items[0].plan, f.body.items[0].used_queries, f.body.items[0].total_cents, f.body.items[0].status],
      ['free', 1, 0, 'recorded'],
    );
  });

  it('is idempotent: run again, or twice at once, and there is still one invoice per cycle', async () => {
    const again = await closeInvoices(billing());
    assert.equal(again.created, 0);
    await Promise.all([closeInvoices(billing()), closeInvoices(billing()), closeInvoices(billing())]);
    const { n } = (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from invoices where organization_id = ${starter.orgId}`)[0]!;
    assert.equal(n, 1);
  });

  it('when the clock passes the next cycle end, that cycle is closed too, at the new plan', async () => {
    const c1 = cycleAt(anchor, c0.end);
    const later = await startTestDaemon({
      label: 'invoicesfuture',
      db: d.db,
      env: { CLOCK_OFFSET_MS: String(c1.end.getTime() + 3_600_000 - Date.now()) },
    });
    try {
      const r = await closeInvoices(
        { sql: later.deps.sql, clock: later.deps.clock, logger: later.deps.logger, stripe: null },
        { orgId: starter.orgId },
      );
      assert.equal(r.created, 1);
      const items = (await req('GET', '/api/v1/billing/invoices/', { key: starter.key })).body.items;
      assert.deepEqual(
        items.map((i: any) => i.period_start),
        [c1.start.toISOString(), c0.start.toISOString()],
      );
      assert.deepEqual([items[0].plan, items[0].used_queries, items[0].total_cents], ['pro', 99, 9900]);
      const page = await req('GET', `/api/v1/billing/invoices/?limit=1&before=${encodeURIComponent(items[0].period_start)}`, {
        key: starter.key,
      });
      assert.deepEqual(
        page.body.items.map((i: any) => i.uuid),
        [items[1].uuid],
      );
    } finally {
      await later.close();
    }
  });

  it('admin: invoices, set-plan, close-invoices', async () => {
    const ls = await admin(['invoices', '--org', starter.orgId, '--json']);
    assert.equal(ls.code, 0, ls.err);
    const rows = JSON.parse(ls.out);
    assert.equal(rows.length, 2);
    assert.ok(rows.every((r: any) => r.organization_uuid === starter.orgId));
    const human = await admin(['invoices', '--org', starter.orgId]);
    assert.match(human.out, /starter\s+used=10507\s+overage=507\s+total=\$30\.01\s+recorded/);

    const sp = await admin(['set-plan', '--org', free.orgId, '--plan', 'starter', '--stripe-customer', 'cus_test_1']);
    assert.equal(sp.code, 0, sp.err);
    assert.match(sp.out, /now on the starter plan \(was free\)/);
    const [org] = await d.deps.sql`select plan, stripe_customer_id from organizations where id = ${free.orgId}`;
    assert.deepEqual({ ...org }, { plan: 'starter', stripe_customer_id: 'cus_test_1' });
    assert.equal((await admin(['set-plan', '--org', free.orgId, '--plan', 'gold'])).code, 2);
    assert.equal((await admin(['set-plan', '--plan', 'pro'])).code, 2);
    assert.equal((await admin(['set-plan', '--org', '00000000-0000-0000-0000-000000000000', '--plan', 'pro'])).code, 1);

    const close = await admin(['close-invoices', '--json']);
    assert.equal(close.code, 0, close.err);
    assert.equal(JSON.parse(close.out).created, 0);
  });
});
