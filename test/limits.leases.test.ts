// Permit leases (daemon/src/limits/permit-leases.ts): a daemon reserves a block of permits for a
// user with room left and serves the user's next requests from it with only the key lookup. Still
// exact: one daemon's admitted requests see the counts 1, 2, … (X-RateLimit-Remaining the exact
// sequence), lower tiers of the same user stop at their own limit, two daemons together never admit
// more than the limit, unused permits go back when the minute rolls, and a key's state is read by
// every request (revoked or disabled: 401 at once, whatever the daemon holds).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { issueKey } from '../daemon/src/auth/issue-key.js';
import { hashApiKey } from '../daemon/src/auth/keys.js';
import type { RateTier } from '../daemon/src/types.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const MINUTE = 60_000;

describe('rate limits: permit leases', () => {
  // A clock the test moves, 5 s into a minute so nothing straddles a window unless a test says so.
  let t = Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE + 5_000;
  const clock = { now: () => new Date(t) };
  let d: TestDaemon;
  let d2: TestDaemon;
  let req: ReturnType<typeof http>;
  let req2: ReturnType<typeof http>;

  const keyOf = async (u: Tenant, tier: RateTier) =>
    (await issueKey(d.deps.sql, { userId: u.userId, name: `k-${tier}-${Math.random()}`, isFullAccess: true, tier, now: clock.now() })).key;
  const list = (r: typeof req, key: string) => r('GET', '/api/v1/collections/', { key });
  const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const row = async (userId: string) =>
    (await d.deps.sql`select minute_count, day_count, month_count from rate_limit_counters where user_id = ${userId}`)[0];

  before(async () => {
    d = await startTestDaemon({ label: 'leases', clock, env: { RATE_LIMITS_ENABLED: 'true' } });
    d2 = await startTestDaemon({ label: 'leases2', clock, db: d.db, env: { RATE_LIMITS_ENABLED: 'true' } });
    req = http(d.url);
    req2 = http(d2.url);
  });
  after(async () => {
    await d2?.close();
    await d?.close();
  });
  beforeEach(() => (t = Math.floor(t / MINUTE) * MINUTE + MINUTE + 5_000));

  it('one daemon, a Basic key one request after another: served from leases, Remaining 59..0 in order, then 429', async () => {
    const u = await createTenant(d, 'lease-seq');
    const key = await keyOf(u, 'basic');
    const before = { ...d.deps.leases.stats };
    const seen: number[] = [];
    for (let i = 0; i < 60; i++) {
      const r = await list(req, key);
      assert.equal(r.status, 200, `request ${i + 1}`);
      assert.equal(r.headers.get('x-ratelimit-limit'), '60');
      seen.push(remaining(r));
    }
    assert.deepEqual(seen, range(0, 59).reverse());
    const denied = await list(req, key);
    assert.equal(denied.status, 429);
    assert.equal(denied.body.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(denied.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(denied.headers.get('retry-after'), '55');
    assert.deepEqual({ ...(await row(u.userId)) }, { minute_count: 60, day_count: 60, month_count: 60 });
    const s = d.deps.leases.stats;
    assert.ok(s.leases - before.leases >= 2, 'blocks were reserved');
    assert.ok(s.fromPool - before.fromPool >= 20, `most requests came from held permits (${s.fromPool - before.fromPool})`);
  });

  it('two daemons, 120 concurrent requests of a Basic user: exactly 60 pass, Remaining 59..0 each once', async () => {
    const u = await createTenant(d, 'lease-two');
    const key = await keyOf(u, 'basic');
    // Each daemon has seen the key, so the burst is served from leases.
    const warm = [await list(req, key), await list(req2, key)];
    const before = [d, d2].map((x) => ({ ...x.deps.leases.stats }));
    const rs = [...warm, ...(await Promise.all(range(1, 120).map((i) => list(i % 2 ? req : req2, key))))];
    const ok = rs.filter((r) => r.status === 200);
    assert.equal(ok.length, 60);
    assert.equal(rs.filter((r) => r.status === 429).length, 62);
    assert.deepEqual(
      ok.map(remaining).sort((a, b) => a - b),
      range(0, 59),
    );
    for (const r of rs.filter((x) => x.status === 429)) assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    assert.equal((await row(u.userId))!.minute_count, 60);
    assert.ok([d, d2].reduce((n, x, i) => n + x.deps.leases.stats.leases - before[i]!.leases, 0) >= 2, 'the daemons reserved blocks');
  });

  it('permits one daemon holds unused are given back before the other refuses: together they admit exactly 60', async () => {
    const u = await createTenant(d, 'lease-reclaim');
    const key = await keyOf(u, 'basic');
    // d reserves a block with its second request, then gets no more requests of this user.
    const first = [await list(req, key), await list(req, key)];
    assert.deepEqual(first.map(remaining), [59, 58]);
    const held = (await row(u.userId))!.minute_count - 2;
    assert.ok(held > 0, 'd holds permits it has not used');
    // d2 alone takes the rest of the minute, one request after another.
    const rs = [];
    for (let i = 0; i < 59; i++) rs.push(await list(req2, key));
    assert.deepEqual(
      rs.map((r) => r.status),
      [...Array(58).fill(200), 429],
      `the permits d held (${held}) went to d2's requests before it refused`,
    );
    assert.deepEqual(
      [...first, ...rs.slice(0, 58)].map(remaining).sort((a, b) => a - b),
      range(0, 59),
      'each count of the minute admitted once',
    );
    assert.equal(rs[58]!.headers.get('retry-after'), '55');
    assert.deepEqual({ ...(await row(u.userId)) }, { minute_count: 60, day_count: 60, month_count: 60 });
  });

  it('a lower tier of the same user stops at its own limit while the daemon holds permits for the higher one', async () => {
    const u = await createTenant(d, 'lease-tiers');
    const pro = await keyOf(u, 'pro');
    for (let i = 1; i <= 3; i++) assert.equal(remaining(await list(req, pro)), 300 - i);
    // The free key (u.key) sees the user's count exactly: 7 more pass (counts 4..10), the 8th does not.
    const free: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await list(req, u.key);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-ratelimit-limit'), '10');
      free.push(remaining(r));
    }
    assert.deepEqual(free, range(0, 6).reverse());
    const denied = await list(req, u.key);
    assert.equal(denied.status, 429);
    assert.match(denied.body.error, /10 requests per minute/);
    const p = await list(req, pro);
    assert.equal(p.status, 200);
    assert.equal(remaining(p), 289, 'the pro key goes on from count 11');
  });

  it('unused permits go back when the minute rolls: the day and month count only what was admitted', async () => {
    const u = await createTenant(d, 'lease-roll');
    const key = await keyOf(u, 'basic');
    for (let i = 0; i < 3; i++) assert.equal((await list(req, key)).status, 200);
    const held = await row(u.userId);
    assert.ok(held!.day_count > 3, `the daemon holds a block (${held!.day_count} counted)`);
    t += MINUTE;
    // The next request, in the new minute, gives the rest back before it counts.
    const r = await list(req, key);
    assert.equal(r.status, 200);
    assert.equal(remaining(r), 59);
    const [again] = await d.deps.sql`select minute_count, day_count from rate_limit_counters where user_id = ${u.userId}`;
    // What the daemon holds now is the new block's rest: minute and day grew by the same block.
    assert.equal(again!.day_count - again!.minute_count, 3, 'day = the 3 admitted before the roll + this minute’s count');
    // The sweep gives back the permits of a minute that has ended, as an idle user's would be.
    t += MINUTE;
    await d.deps.leases.sweep();
    assert.deepEqual({ ...(await row(u.userId)) }, { minute_count: 1, day_count: 4, month_count: 4 });
  });

  it('a revoked key, a disabled user: 401 at once though the daemon holds permits for them', async () => {
    const u = await createTenant(d, 'lease-revoke');
    const key = await keyOf(u, 'basic');
    const other = await keyOf(u, 'basic');
    for (let i = 0; i < 3; i++) assert.equal((await list(req, key)).status, 200);
    await d.deps.sql`update api_keys set is_active = false where key_hash = ${hashApiKey(key)}`;
    const revoked = await list(req, key);
    assert.equal(revoked.status, 401);
    assert.equal(revoked.body.code, 'INVALID_API_KEY');
    assert.equal((await list(req, other)).status, 200, 'the user’s other key goes on');
    await d.deps.sql`update users set is_active = false where id = ${u.userId}`;
    const disabled = await list(req, other);
    assert.equal(disabled.status, 401);
    assert.equal(disabled.body.code, 'USER_ACCOUNT_DISABLED');
  });
});
