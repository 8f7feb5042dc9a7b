// Plan quotas: searches (REST and MCP) count against the included quota; Free stops with 429 until
// the next cycle, exactly under concurrency; paid plans accrue overage; failed searches are free.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPlan } from '../daemon/src/billing/org-plan.js';
import { cycleAt } from '../daemon/src/billing/plans.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const DAY = 86_400_000;

describe('plan quotas', () => {
  // Noon UTC, so the anchor (3 days back) and cycle boundaries are whole days away.
  let t = Math.floor(Date.now() / DAY) * DAY + 12 * 3_600_000;
  const clock = { now: () => new Date(t) };
  let d: TestDaemon;
  let req: ReturnType<typeof http>;

  const search = (key: string, json: Record<string, unknown> = { query: 'anything' }) => req('POST', '/api/v1/search/', { key, json });
  const plan = (key: string) => req('GET', '/api/v1/billing/plan/', { key });
  const cycleStart = () => new Date(Math.floor(t / DAY) * DAY - 3 * DAY);

  /** A tenant whose billing cycle started 3 days ago, with `used` searches already counted. */
  async function tenantWithUsage(label: string, used: number): Promise<Tenant> {
    const tn = await createTenant(d, label);
    await d.deps
      .sql`update organizations set billing_cycle_anchor = ${new Date(cycleStart().getTime() + 5 * 3_600_000)} where id = ${tn.orgId}`;
    if (used)
      await d.deps
        .sql`insert into search_quota_usage (organization_id, cycle_start, searches) values (${tn.orgId}, ${cycleStart()}, ${used})`;
    return tn;
  }

  before(async () => {
    d = await startTestDaemon({ label: 'quota', clock });
    req = http(d.url);
  });
  after(async () => d?.close());

  it('Free: the 1,000th search passes, the next answers 429 saying the plan quota is used up', async () => {
    const tn = await tenantWithUsage('free', 998);
    assert.equal((await search(tn.key)).status, 200);
    assert.equal((await search(tn.key)).status, 200);
    const r = await search(tn.key);
    assert.equal(r.status, 429);
    assert.equal(r.body.code, 'RATE_LIMIT_EXCEEDED');
    assert.match(r.body.error, /plan quota used up/i);
    assert.match(r.body.error, /Free plan includes 1,000 searches/);
    // Cycle arithmetic itself is unit-tested in daemon/src/billing/plans.test.ts.
    const cycleEnd = cycleAt(cycleStart(), cycleStart()).end.getTime();
    assert.equal(r.headers.get('retry-after'), String(Math.ceil((cycleEnd - t) / 1000)));
    // Other endpoints keep working.
    assert.equal((await req('GET', '/api/v1/collections/', { key: tn.key })).status, 200);
    // MCP search_documents gets the same refusal as a tool error.
    const mcp = await req('POST', '/mcp', {
      key: tn.key,
      headers: { accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_documents', arguments: { query: 'anything' } } },
    });
    assert.equal(mcp.status, 200);
    assert.equal(mcp.body.result.isError, true);
    assert.equal(mcp.body.result.structuredContent.code, 'RATE_LIMIT_EXCEEDED');
    const p = await plan(tn.key);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.plan, 'free');
    assert.equal(p.body.hard_quota, true);
    assert.equal(p.body.used_queries, 1000);
    assert.equal(p.body.remaining_included_queries, 0);
    assert.equal(p.body.overage_queries, 0);
    assert.equal(p.body.projected_total_cents, 0);
    // A hard quota stops searches at 1,000: the pace so far (1,000 in 3 days) projects no more than that.
    assert.equal(p.body.projected_queries, 1000);
    assert.equal(p.body.cycle_start, cycleStart().toISOString());
    assert.equal(p.body.cycle_end, new Date(cycleEnd).toISOString());

    // The next cycle starts from zero.
    const saved = t;
    t = cycleEnd + 1000;
    try {
      assert.equal((await search(tn.key)).status, 200);
      assert.equal((await plan(tn.key)).body.used_queries, 1);
    } finally {
      t = saved;
    }
  });

  it('Free: 25 concurrent searches with 10 left: exactly 10 pass', async () => {
    const tn = await tenantWithUsage('race', 990);
    const rs = await Promise.all(Array.from({ length: 25 }, () => search(tn.key)));
    assert.equal(rs.filter((r) => r.status === 200).length, 10);
    assert.equal(rs.filter((r) => r.status === 429).length, 15);
    assert.equal((await plan(tn.key)).body.used_queries, 1000);
  });

  it('failed searches are not counted', async () => {
    const tn = await tenantWithUsage('failing', 5);
    assert.equal((await search(tn.key, { query: 'x', collection: 'no-such-collection' })).status, 404);
    assert.equal((await search(tn.key, { query: '' })).status, 400);
    assert.equal((await plan(tn.key)).body.used_queries, 5);
  });

  it('paid plans never block and accrue overage (rounded half up to cents)', async () => {
    const tn = await tenantWithUsage('starter', 10_000);
    await setPlan(d.deps.sql, tn.orgId, 'starter', clock.now());
    let p = await plan(tn.key);
    assert.deepEqual(
      [p.body.plan, p.body.price_cents, p.body.included_queries, p.body.overage_rate_millicents, p.body.hard_quota],
      ['starter', 2900, 10_000, 200, false],
    );
    assert.equal((await search(tn.key)).status, 200);
    p = await plan(tn.key);
    assert.deepEqual([p.body.used_queries, p.body.overage_queries, p.body.overage_cents], [10_001, 1, 0]);
    for (let i = 0; i < 3; i++) assert.equal((await search(tn.key)).status, 200);
    p = await plan(tn.key);
    assert.deepEqual([p.body.used_queries, p.body.overage_queries, p.body.overage_cents], [10_004, 4, 1]);
    // 3.5 days elapsed of the cycle: the pace so far, extrapolated over its whole length.
    const c = cycleAt(cycleStart(), cycleStart());
    assert.equal(p.body.projected_queries, Math.round((10_004 * (c.end.getTime() - c.start.getTime())) / (t - c.start.getTime())));
    assert.equal(p.body.projected_total_cents, 2900 + p.body.projected_overage_cents);

    await setPlan(d.deps.sql, tn.orgId, 'pro', clock.now());
    p = await plan(tn.key);
    assert.deepEqual(
      [p.body.plan, p.body.price_cents, p.body.included_queries, p.body.overage_rate_millicents, p.body.overage_queries],
      ['pro', 9900, 100_000, 100, 0],
    );
  });

  it('billing plan: full-access keys only', async () => {
    const tn = await tenantWithUsage('scopedbill', 0);
    const k = await req('POST', '/api/v1/keys/', { key: tn.key, json: { name: 'scoped' } });
    const r = await plan(k.body.key);
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'SCOPED_KEY_FORBIDDEN');
    assert.equal((await req('GET', '/api/v1/billing/invoices/', { key: k.body.key })).status, 403);
  });
});

describe('plan quota refusal with rate limits on', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ label: 'quota_headers', env: { RATE_LIMITS_ENABLED: 'true' } });
  });
  after(async () => d?.close());

  it('the quota 429 describes the quota in X-RateLimit-*, matching its Retry-After; other answers keep the per-minute window', async () => {
    const tn = await createTenant(d, 'quota_hdr');
    const now = Date.now();
    const cycle = cycleAt(new Date(now - 3 * DAY), new Date(now));
    await d.deps.sql`update organizations set billing_cycle_anchor = ${cycle.start} where id = ${tn.orgId}`;
    await d.deps.sql`insert into search_quota_usage (organization_id, cycle_start, searches) values (${tn.orgId}, ${cycle.start}, 1000)`;
    const req = http(d.url);
    const r = await req('POST', '/api/v1/search/', { key: tn.key, json: { query: 'anything' } });
    assert.equal(r.status, 429, r.text);
    assert.match(r.body.error, /plan quota used up/i);
    const retryAfter = Number(r.headers.get('retry-after'));
    assert.ok(retryAfter > 26 * 86_400, `Retry-After ${retryAfter} s reaches the next cycle`);
    assert.equal(r.headers.get('x-ratelimit-limit'), '1000');
    assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(r.headers.get('x-ratelimit-reset'), String(Math.ceil(cycle.end.getTime() / 1000)));
    // Any other answer describes the per-minute request window, as before.
    const list = await req('GET', '/api/v1/collections/', { key: tn.key });
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('x-ratelimit-limit'), '10');
    assert.equal(list.headers.get('x-ratelimit-remaining'), '8');
  });
});
