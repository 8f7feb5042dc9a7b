// The Stripe payment adapter, through the real `stripe` client, against a local HTTP stand-in for
// api.stripe.com (STRIPE_API_URL): request shapes, idempotency keys, failure and retry, and
// invoices that stay local (no customer, nothing to charge).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { closeInvoices } from '../daemon/src/billing/invoices.js';
import { setPlan } from '../daemon/src/billing/org-plan.js';
import { stripeClient } from '../daemon/src/billing/payments.js';
import { cycleAt } from '../daemon/src/billing/plans.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const DAY = 86_400_000;

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: URLSearchParams;
}

describe('Stripe adapter', () => {
  const seen: Seen[] = [];
  let failFinalize = false;
  let stand: Server;
  let d: TestDaemon;
  let paid: Tenant;
  const anchor = new Date(Date.now() - 45 * DAY);
  const c0 = cycleAt(anchor, anchor);

  before(async () => {
    let n = 0;
    stand = createServer((rq, rs) => {
      let body = '';
      rq.on('data', (b) => (body += b));
      rq.on('end', () => {
        const form = new URLSearchParams(body);
        seen.push({ method: rq.method!, path: rq.url!, headers: rq.headers, form });
        const json = (status: number, obj: unknown) => {
          rs.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++n}` });
          rs.end(JSON.stringify(obj));
        };
        if (rq.url === '/v1/invoices')
          return json(200, { id: 'in_test_1', object: 'invoice', status: 'draft', customer: form.get('customer') });
        if (rq.url === '/v1/invoiceitems') return json(200, { id: `ii_${n}`, object: 'invoiceitem', amount: Number(form.get('amount')) });
        if (rq.url === '/v1/invoices/in_test_1/finalize') {
          if (failFinalize)
            return json(400, { error: { type: 'invalid_request_error', message: 'This customer has no default payment method.' } });
          return json(200, { id: 'in_test_1', object: 'invoice', status: 'open' });
        }
        json(404, { error: { type: 'invalid_request_error', message: `unknown ${rq.url}` } });
      });
    });
    await new Promise<void>((r) => stand.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(stand.address() as AddressInfo).port}`;
    d = await startTestDaemon({ label: 'stripe', env: { STRIPE_SECRET_KEY: 'sk_test_docsift', STRIPE_API_URL: url } });
    paid = await createTenant(d, 'stripe-paid');
    await d.deps.sql`update organizations set billing_cycle_anchor = ${anchor}`;
    await setPlan(d.deps.sql, paid.orgId, 'starter', new Date(anchor.getTime() + DAY), { stripeCustomerId: 'cus_docsift_1' });
    await d.deps.sql`
      insert into usage_daily (key_id, day, organization_id, user_id, requests, errors, total_duration_us, searches, billable_searches)
      values (gen_random_uuid(), ${c0.start.toISOString().slice(0, 10)}::date, ${paid.orgId}, ${paid.userId}, 10003, 0, 0, 10003, 10003)`;
  });
  after(async () => {
    await d?.close();
    await new Promise((r) => stand?.close(r));
  });

  const ctx = () => ({ sql: d.deps.sql, clock: d.deps.clock, logger: d.deps.logger, stripe: stripeClient(d.config) });
  const invoiceOf = async (orgId: string) => (await d.deps.sql<any[]>`select * from invoices where organization_id = ${orgId}`)[0];

  it('a failed submission is recorded and retried with the same idempotency keys', async () => {
    failFinalize = true;
    const r = await closeInvoices(ctx(), { orgId: paid.orgId });
    assert.deepEqual(r, { created: 1, submitted: 0, failed: 1 });
    const inv = await invoiceOf(paid.orgId);
    assert.equal(inv.status, 'failed');
    assert.match(inv.last_error, /no default payment method/);
    assert.equal(inv.attempts, 1);
    const firstKeys = seen.map((s) => s.headers['idempotency-key']);
    seen.length = 0;

    failFinalize = false;
    const again = await closeInvoices(ctx(), { orgId: paid.orgId });
    assert.deepEqual(again, { created: 0, submitted: 1, failed: 0 });
    assert.deepEqual(
      seen.map((s) => s.headers['idempotency-key']),
      firstKeys,
    );
  });

  it('sends a draft invoice, the fee and overage items, and finalizes it', async () => {
    const inv = await invoiceOf(paid.orgId);
    assert.deepEqual([inv.status, inv.processor, inv.external_id, inv.attempts, inv.last_error], ['sent', 'stripe', 'in_test_1', 2, null]);
    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.path}`),
      ['POST /v1/invoices', 'POST /v1/invoiceitems', 'POST /v1/invoiceitems', 'POST /v1/invoices/in_test_1/finalize'],
    );
    for (const s of seen) {
      assert.equal(s.headers.authorization, 'Bearer sk_test_docsift');
      assert.ok(s.headers['stripe-version'], 'pinned API version');
      assert.match(String(s.headers['idempotency-key']), new RegExp(`^docsift-invoice-${inv.id}-`));
    }
    const [create, fee, overage] = seen.map((s) => Object.fromEntries(s.form));
    assert.deepEqual(
      {
        customer: create!.customer,
        currency: create!.currency,
        collection_method: create!.collection_method,
        auto_advance: create!.auto_advance,
        pending: create!.pending_invoice_items_behavior,
        meta: create!['metadata[docsift_invoice_id]'],
      },
      {
        customer: 'cus_docsift_1',
        currency: 'usd',
        collection_method: 'charge_automatically',
        auto_advance: 'true',
        pending: 'exclude',
        meta: inv.id,
      },
    );
    assert.deepEqual(
      {
        customer: fee!.customer,
        invoice: fee!.invoice,
        amount: fee!.amount,
        currency: fee!.currency,
        start: fee!['period[start]'],
        end: fee!['period[end]'],
      },
      {
        customer: 'cus_docsift_1',
        invoice: 'in_test_1',
        amount: '2900',
        currency: 'usd',
        start: String(c0.start.getTime() / 1000),
        end: String(c0.end.getTime() / 1000),
      },
    );
    // 3 searches over at 0.2 ¢ = 0.6 ¢ → 1 ¢.
    assert.deepEqual([overage!.invoice, overage!.amount], ['in_test_1', '1']);
    assert.match(overage!.description!, /^3 searches over the included 10,000 at \$0\.002 each$/);
    assert.equal(Number(inv.total_cents), 2901);
  });

  it('nothing to charge, or no Stripe customer: recorded locally, no request', async () => {
    const freeOrg = await createTenant(d, 'stripe-free');
    await d.deps
      .sql`update organizations set billing_cycle_anchor = ${anchor}, stripe_customer_id = 'cus_free' where id = ${freeOrg.orgId}`;
    const noCustomer = await createTenant(d, 'stripe-nocus');
    await d.deps.sql`update organizations set billing_cycle_anchor = ${anchor} where id = ${noCustomer.orgId}`;
    await setPlan(d.deps.sql, noCustomer.orgId, 'pro', new Date(anchor.getTime() + DAY));
    seen.length = 0;
    await closeInvoices(ctx());
    assert.equal(seen.length, 0);
    const a = await invoiceOf(freeOrg.orgId);
    const b = await invoiceOf(noCustomer.orgId);
    assert.deepEqual([a.status, a.processor, Number(a.total_cents)], ['recorded', 'local', 0]);
    assert.deepEqual([b.status, b.processor, Number(b.total_cents)], ['recorded', 'local', 9900]);
  });
});
