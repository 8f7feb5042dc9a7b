// Per-user rate limits: exact under concurrency (several keys, two daemon processes), the
// X-RateLimit-* headers, Retry-After, tiers, /mcp counting, public endpoints not counting.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { issueKey } from '../daemon/src/auth/issue-key.js';
import type { RateTier } from '../daemon/src/types.js';
import { createTenant, http, startTestDaemon, type HttpResult, type Tenant, type TestDaemon } from './helpers/daemon.js';

const MINUTE = 60_000;

/** A clock the test moves; starts 5 s into a minute so a burst never straddles a window. */
function testClock() {
  let t = Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE + 5_000;
  return {
    now: () => new Date(t),
    set: (ms: number) => (t = ms),
    get: () => t,
    /** Jumps to 5 s into the next minute. */
    nextMinute: () => (t = Math.floor(t / MINUTE) * MINUTE + MINUTE + 5_000),
  };
}

describe('rate limits', () => {
  const clock = testClock();
  let d: TestDaemon;
  let d2: TestDaemon;
  let req: ReturnType<typeof http>;
  let req2: ReturnType<typeof http>;
  let user: Tenant;
  let other: Tenant;
  let keys: string[];

  async function extraKey(t: Tenant, tier: RateTier = 'free', isFullAccess = true): Promise<string> {
    return (await issueKey(d.deps.sql, { userId: t.userId, name: `k-${tier}-${Math.random()}`, isFullAccess, tier, now: clock.now() })).key;
  }
  const list = (r: typeof req, key: string) => r('GET', '/api/v1/collections/', { key });
  const counts = (rs: HttpResult[]) => ({
    ok: rs.filter((r) => r.status === 200).length,
    limited: rs.filter((r) => r.status === 429).length,
  });
  const resetOf = (ms: number) => String(Math.ceil(ms / 1000));

  before(async () => {
    d = await startTestDaemon({ label: 'limits', clock, env: { RATE_LIMITS_ENABLED: 'true' } });
    // A second daemon process-equivalent on the same database: counters must be shared exactly.
    d2 = await startTestDaemon({ label: 'limits2', clock, db: d.db, env: { RATE_LIMITS_ENABLED: 'true' } });
    req = http(d.url);
    req2 = http(d2.url);
    user = await createTenant(d, 'limited');
    other = await createTenant(d, 'bystander');
    keys = [user.key, await extraKey(user), await extraKey(user, 'free', false)];
  });
  after(async () => {
    await d2?.close();
    await d?.close();
  });
  beforeEach(() => clock.nextMinute());

  it('30 concurrent requests from 3 keys of one Free user on 2 daemons: exactly 10 pass', async () => {
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => list(i % 2 ? req : req2, keys[i % 3]!)));
    assert.deepEqual(counts(rs), { ok: 10, limited: 20 });
    const minuteEnd = Math.floor(clock.get() / MINUTE) * MINUTE + MINUTE;
    const ok = rs.filter((r) => r.status === 200);
    // Each admitted request saw a different count: remaining 9, 8, …, 0 in the minute window.
    assert.deepEqual(
      ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    for (const r of ok) {
      assert.equal(r.headers.get('x-ratelimit-limit'), '10');
      assert.equal(r.headers.get('x-ratelimit-reset'), resetOf(minuteEnd));
      assert.equal(r.headers.get('retry-after'), null);
    }
    for (const r of rs.filter((x) => x.status === 429)) {
      assert.equal(r.body.code, 'RATE_LIMIT_EXCEEDED');
      assert.match(r.body.error, /10 requests per minute/);
      assert.equal(r.headers.get('retry-after'), '55');
      assert.equal(r.headers.get('x-ratelimit-limit'), '10');
      assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(r.headers.get('x-ratelimit-reset'), resetOf(minuteEnd));
    }
    // Denied requests consumed nothing.
    const [row] = await d.deps.sql`select minute_count, day_count, month_count from rate_limit_counters where user_id = ${user.userId}`;
    assert.equal(row!.minute_count, 10);
  });

  it('Retry-After counts down to the window end, and the next window admits again', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await list(req, keys[0]!)).status, 200);
    clock.set(clock.get() + 41_500); // 46.5 s into the minute
    const denied = await list(req, keys[1]!);
    assert.equal(denied.status, 429);
    assert.equal(denied.headers.get('retry-after'), '14', 'ceil(13.5 s)');
    clock.nextMinute();
    const again = await list(req, keys[2]!);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('x-ratelimit-remaining'), '9');
  });

  it('other users are unaffected while one is blocked', async () => {
    for (let i = 0; i < 10; i++) await list(req, user.key);
    assert.equal((await list(req, user.key)).status, 429);
    const r = await list(req, other.key);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-ratelimit-remaining'), '9');
  });

  it('a user whose counter row is gone (crash-emptied or pruned) is counted from zero again, exactly, on 2 daemons', async () => {
    const t = await createTenant(d, 'row-gone');
    assert.equal((await list(req, t.key)).status, 200);
    await d.deps.sql`delete from rate_limit_counters where user_id = ${t.userId}`;
    const rs = await Promise.all(Array.from({ length: 14 }, (_, i) => list(i % 2 ? req : req2, t.key)));
    assert.deepEqual(counts(rs), { ok: 10, limited: 4 });
    const [row] = await d.deps.sql`select minute_count, day_count from rate_limit_counters where user_id = ${t.userId}`;
    assert.deepEqual({ ...row }, { minute_count: 10, day_count: 10 });
  });

  it('limits follow the calling key’s tier; counters stay per user', async () => {
    const t = await createTenant(d, 'tiers');
    const basic = await extraKey(t, 'basic');
    const pro = await extraKey(t, 'pro');
    const b = await list(req, basic);
    assert.equal(b.headers.get('x-ratelimit-limit'), '60');
    assert.equal(b.headers.get('x-ratelimit-remaining'), '59');
    for (let i = 0; i < 9; i++) assert.equal((await list(req, t.key)).status, 200);
    assert.equal((await list(req, t.key)).status, 429, 'free key: 10 per minute, shared count');
    const p = await list(req, pro);
    assert.equal(p.status, 200, 'the same user’s pro key still passes');
    assert.equal(p.headers.get('x-ratelimit-limit'), '300');
    assert.equal(p.headers.get('x-ratelimit-remaining'), '289');
  });

  it('headers report the tightest window: the day or month when it has fewer left', async () => {
    const t = await createTenant(d, 'daily');
    assert.equal((await list(req, t.key)).status, 200);
    await d.deps.sql`update rate_limit_counters set day_count = 996 where user_id = ${t.userId}`;
    const r = await list(req, t.key);
    const dayEnd = Date.UTC(
      new Date(clock.get()).getUTCFullYear(),
      new Date(clock.get()).getUTCMonth(),
      new Date(clock.get()).getUTCDate() + 1,
    );
    assert.equal(r.headers.get('x-ratelimit-limit'), '1000');
    assert.equal(r.headers.get('x-ratelimit-remaining'), '3');
    assert.equal(r.headers.get('x-ratelimit-reset'), resetOf(dayEnd));

    await d.deps.sql`update rate_limit_counters set month_count = 10000 where user_id = ${t.userId}`;
    clock.nextMinute();
    const blocked = await list(req, t.key);
    const now = new Date(clock.get());
    const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    assert.equal(blocked.status, 429);
    assert.match(blocked.body.error, /10000 requests per month/);
    assert.equal(blocked.headers.get('x-ratelimit-limit'), '10000');
    assert.equal(blocked.headers.get('x-ratelimit-reset'), resetOf(monthEnd));
    assert.equal(blocked.headers.get('retry-after'), String(Math.ceil((monthEnd - clock.get()) / 1000)));
  });

  it('/mcp counts against the same limit and carries the headers', async () => {
    const t = await createTenant(d, 'mcp');
    const rpc = (id: number) =>
      req('POST', '/mcp', {
        key: t.key,
        headers: { accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id, method: 'tools/list', params: {} },
      });
    for (let i = 0; i < 5; i++) assert.equal((await list(req, t.key)).status, 200);
    const rs = [];
    for (let i = 0; i < 6; i++) rs.push(await rpc(i));
    assert.deepEqual(
      rs.map((r) => r.status),
      [200, 200, 200, 200, 200, 429],
    );
    assert.equal(rs[0]!.headers.get('x-ratelimit-remaining'), '4');
    assert.equal(rs[0]!.headers.get('x-ratelimit-limit'), '10');
    assert.equal(rs[5]!.body.code, 'RATE_LIMIT_EXCEEDED');
    assert.ok(Number(rs[5]!.headers.get('retry-after')) > 0);
  });

  it("the schema and 401s carry the address's anonymous budget, never a user's count; health checks carry nothing", async () => {
    const t = await createTenant(d, 'public');
    // docs/service-spec.md §8 puts the headers on every API response, the schema and 401s included.
    const before = Number((await req('GET', '/api/v1/schema/')).headers.get('x-ratelimit-remaining'));
    for (let i = 0; i < 15; i++) {
      const s = await req('GET', '/api/v1/schema/');
      assert.equal(s.status, 200);
      assert.equal(s.headers.get('x-ratelimit-limit'), '60', 'the anonymous per-address budget');
      assert.equal(Number(s.headers.get('x-ratelimit-remaining')), before - i - 1);
    }
    assert.equal((await req('GET', '/healthz')).headers.get('x-ratelimit-limit'), null);
    const denied = await req('GET', '/api/v1/collections/', { key: 'svc_' + 'x'.repeat(40) });
    assert.equal(denied.status, 401);
    assert.equal(Number(denied.headers.get('x-ratelimit-remaining')), before - 16);
    const r = await list(req, t.key);
    assert.equal(r.headers.get('x-ratelimit-remaining'), '9', 'first counted request of this user');
  });

  it('keys that do not authenticate get their 401 and count nothing', async () => {
    const t = await createTenant(d, 'authfail');
    const expired = (
      await issueKey(d.deps.sql, {
        userId: t.userId,
        name: 'old',
        isFullAccess: true,
        expiresIn: '30d',
        now: new Date(clock.get() - 40 * 86_400_000),
      })
    ).key;
    const revoked = await extraKey(t);
    await d.deps
      .sql`update api_keys set is_active = false where key_hash = ${(await import('../daemon/src/auth/keys.js')).hashApiKey(revoked)}`;
    assert.equal((await list(req, t.key)).headers.get('x-ratelimit-remaining'), '9');
    const codes = [];
    for (const key of [expired, revoked, 'svc_' + 'z'.repeat(40), 'garbage']) codes.push((await list(req, key)).body.code);
    codes.push((await req('GET', '/api/v1/collections/')).body.code);
    assert.deepEqual(codes, ['API_KEY_EXPIRED', 'INVALID_API_KEY', 'INVALID_API_KEY', 'INVALID_API_KEY', 'AUTHENTICATION_REQUIRED']);
    const member = await extraKey(t);
    await d.deps.sql`update users set is_active = false where id = ${t.userId}`;
    assert.equal((await list(req, member)).body.code, 'USER_ACCOUNT_DISABLED');
    await d.deps.sql`update users set is_active = true where id = ${t.userId}`;
    const [row] = await d.deps.sql`select minute_count from rate_limit_counters where user_id = ${t.userId}`;
    assert.equal(row!.minute_count, 1);
  });

  it('every authenticated response carries the headers, errors included', async () => {
    const r = await req('GET', '/api/v1/documents/00000000-0000-0000-0000-000000000000/', { key: other.key });
    assert.equal(r.status, 404);
    assert.ok(r.headers.get('x-ratelimit-limit'));
    assert.ok(r.headers.get('x-ratelimit-remaining'));
    assert.ok(r.headers.get('x-ratelimit-reset'));
  });
});
