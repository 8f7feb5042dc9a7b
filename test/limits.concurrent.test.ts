// Concurrent requests of one user across daemons are counted exactly: never more than the limit
// admitted, each admitted request sees the count a one-by-one run gives it (X-RateLimit-Remaining
// a permutation of the exact sequence), and a key that does not authenticate counts nothing while
// the others of its burst pass.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { issueKey } from '../daemon/src/auth/issue-key.js';
import type { RateTier } from '../daemon/src/types.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const MINUTE = 60_000;

describe('rate limits: concurrent requests', () => {
  // A clock the test moves, 5 s into a minute so nothing straddles a window unless a test says so.
  let t = Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE + 5_000;
  const clock = { now: () => new Date(t) };
  let d: TestDaemon;
  let d2: TestDaemon;

  const keyOf = async (u: Tenant, tier: RateTier = 'free') =>
    (await issueKey(d.deps.sql, { userId: u.userId, name: `k-${tier}-${Math.random()}`, isFullAccess: true, tier, now: clock.now() })).key;
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const row = async (userId: string) =>
    (await d.deps.sql`select minute_count, day_count, month_count from rate_limit_counters where user_id = ${userId}`)[0];

  before(async () => {
    d = await startTestDaemon({ label: 'concurrent', clock, env: { RATE_LIMITS_ENABLED: 'true' } });
    d2 = await startTestDaemon({ label: 'concurrent2', clock, db: d.db, env: { RATE_LIMITS_ENABLED: 'true' } });
  });
  after(async () => {
    await d2?.close();
    await d?.close();
  });
  beforeEach(() => (t = Math.floor(t / MINUTE) * MINUTE + MINUTE + 5_000));

  it('over HTTP on 2 daemons, 80 concurrent requests of a Basic key: exactly 60 pass, Remaining 59..0 each once, 429s exact', async () => {
    const u = await createTenant(d, 'gc-http');
    const key = await keyOf(u, 'basic');
    const [r1, r2] = [http(d.url), http(d2.url)];
    const rs = await Promise.all(range(1, 80).map((i) => (i % 2 ? r1 : r2)('GET', '/api/v1/collections/', { key })));
    const ok = rs.filter((r) => r.status === 200);
    assert.equal(ok.length, 60);
    assert.equal(rs.filter((r) => r.status === 429).length, 20);
    assert.deepEqual(
      ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b),
      range(0, 59),
    );
    const reset = String(Math.ceil((Math.floor(t / MINUTE) * MINUTE + MINUTE) / 1000));
    for (const r of rs) {
      assert.equal(r.headers.get('x-ratelimit-limit'), '60');
      assert.equal(r.headers.get('x-ratelimit-reset'), reset);
    }
    for (const r of rs.filter((x) => x.status === 429)) {
      assert.equal(r.body.code, 'RATE_LIMIT_EXCEEDED');
      assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(r.headers.get('retry-after'), '55');
    }
    assert.equal((await row(u.userId))!.minute_count, 60);
  });

  it('a bad key in a burst gets its 401 while the others pass', async () => {
    const u = await createTenant(d, 'gc-401');
    const req = http(d.url);
    const rs = await Promise.all(
      range(1, 9).map((i) => req('GET', '/api/v1/collections/', { key: i === 5 ? 'ds_not_a_real_key_0000000000000000' : u.key })),
    );
    assert.deepEqual(
      rs.map((r) => r.status),
      [200, 200, 200, 200, 401, 200, 200, 200, 200],
    );
    assert.equal(rs[4]!.body.code, 'INVALID_API_KEY');
    assert.equal((await row(u.userId))!.minute_count, 8);
  });
});
