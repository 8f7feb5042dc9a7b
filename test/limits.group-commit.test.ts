// The rate limiter's group commit (daemon/src/limits/key-counter.ts): requests that arrive while a
// daemon's counting statement is in flight are counted together by the next one. Still exact across
// daemons: never more than the limit admitted, each admitted request sees the count a one-by-one run
// gives it (X-RateLimit-Remaining a permutation of the exact sequence), keys that do not authenticate
// count nothing, and other users in the same statement are untouched.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { issueKey } from '../daemon/src/accounts/create.js';
import { hashApiKey } from '../daemon/src/auth/keys.js';
import { countForKeys } from '../daemon/src/limits/key-counter.js';
import type { KeyCount } from '../daemon/src/limits/limiter.js';
import type { RateTier } from '../daemon/src/types.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const MINUTE = 60_000;

describe('rate limits: concurrent requests counted together', () => {
  // A clock the test moves, 5 s into a minute so nothing straddles a window unless a test says so.
  let t = Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE + 5_000;
  const clock = { now: () => new Date(t) };
  let d: TestDaemon;
  let d2: TestDaemon;

  const keyOf = async (u: Tenant, tier: RateTier = 'free') =>
    (await issueKey(d.deps.sql, { userId: u.userId, name: `k-${tier}-${Math.random()}`, isFullAccess: true, tier, now: clock.now() })).key;
  const admitted = (rs: (KeyCount | undefined)[]) => rs.filter((r) => r?.counter?.admitted);
  const minuteCounts = (rs: (KeyCount | undefined)[]) => rs.map((r) => r!.counter!.minute_count).sort((a, b) => a - b);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const row = async (userId: string) =>
    (await d.deps.sql`select minute_count, day_count, month_count from rate_limit_counters where user_id = ${userId}`)[0];

  before(async () => {
    d = await startTestDaemon({ label: 'group-commit', clock, env: { RATE_LIMITS_ENABLED: 'true' } });
    d2 = await startTestDaemon({ label: 'group-commit2', clock, db: d.db, env: { RATE_LIMITS_ENABLED: 'true' } });
  });
  after(async () => {
    await d2?.close();
    await d?.close();
  });
  beforeEach(() => (t = Math.floor(t / MINUTE) * MINUTE + MINUTE + 5_000));

  it('one statement counting 14 requests of a Free user admits exactly 10, seeing counts 1..10; another user in it is untouched', async () => {
    const u = await createTenant(d, 'gc-one');
    const bystander = await createTenant(d, 'gc-bystander');
    const hash = hashApiKey(u.key);
    const reqs = Array.from({ length: 14 }, () => ({ keyHash: hash, now: clock.now() }));
    reqs.splice(7, 0, { keyHash: hashApiKey(bystander.key), now: clock.now() });
    const rs = await countForKeys(d.deps.sql, reqs);
    const mine = rs.filter((r) => r?.key.user_id === u.userId);
    assert.equal(admitted(mine).length, 10);
    assert.deepEqual(minuteCounts(admitted(mine)), range(1, 10));
    for (const r of mine.filter((x) => !x!.counter!.admitted))
      assert.equal(r!.counter!.minute_count, 10, 'refused ones see the full window');
    assert.deepEqual({ ...(await row(u.userId)) }, { minute_count: 10, day_count: 10, month_count: 10 });
    assert.equal(rs[7]!.key.user_id, bystander.userId);
    assert.deepEqual(
      [rs[7]!.counter!.admitted, rs[7]!.counter!.minute_count, rs[7]!.counter!.day_count, rs[7]!.counter!.month_count],
      [true, 1, 1, 1],
    );
    // Over a row that already exists: the next 3 of the same minute are all refused, nothing consumed.
    const more = await countForKeys(
      d.deps.sql,
      [1, 2, 3].map(() => ({ keyHash: hash, now: clock.now() })),
    );
    assert.equal(admitted(more).length, 0);
    assert.equal((await row(u.userId))!.minute_count, 10);
  });

  it('mixed tiers of one user in one statement: counted as if the larger limits came first, never over any key’s limit', async () => {
    const u = await createTenant(d, 'gc-tiers');
    const pro = await keyOf(u, 'pro');
    await countForKeys(
      d.deps.sql,
      range(1, 8).map(() => ({ keyHash: hashApiKey(u.key), now: clock.now() })),
    );
    const order = [u.key, u.key, pro, pro, u.key];
    const rs = await countForKeys(
      d.deps.sql,
      order.map((k) => ({ keyHash: hashApiKey(k), now: clock.now() })),
    );
    assert.deepEqual(
      rs.map((r) => [r!.key.rate_tier, r!.counter!.admitted, r!.counter!.minute_count]),
      [
        ['free', false, 10],
        ['free', false, 10],
        ['pro', true, 9],
        ['pro', true, 10],
        ['free', false, 10],
      ],
    );
    assert.equal((await row(u.userId))!.minute_count, 10);
  });

  it('unknown and revoked keys in a statement get their answer and count nothing', async () => {
    const u = await createTenant(d, 'gc-keys');
    const revoked = await keyOf(u);
    await d.deps.sql`update api_keys set is_active = false where key_hash = ${hashApiKey(revoked)}`;
    const rs = await countForKeys(d.deps.sql, [
      { keyHash: hashApiKey('ds_unknown_key_000000000000000000000000'), now: clock.now() },
      { keyHash: hashApiKey(revoked), now: clock.now() },
      { keyHash: hashApiKey(u.key), now: clock.now() },
    ]);
    assert.equal(rs[0], undefined);
    assert.deepEqual([rs[1]!.key.key_active, rs[1]!.counter], [false, undefined]);
    assert.deepEqual([rs[2]!.counter!.admitted, rs[2]!.counter!.minute_count], [true, 1]);
    assert.equal((await row(u.userId))!.minute_count, 1);
  });

  it('the counters of two daemons group what arrives meanwhile: 60 at once from 3 keys give exactly 10, counts 1..10', async () => {
    const u = await createTenant(d, 'gc-two');
    const hashes = [u.key, await keyOf(u), await keyOf(u)].map(hashApiKey);
    const before = [d, d2].map((x) => ({ ...x.deps.keyCounter.stats }));
    const rs = await Promise.all(range(1, 60).map((i) => (i % 2 ? d : d2).deps.keyCounter.count(hashes[i % 3]!, clock.now())));
    assert.equal(admitted(rs).length, 10);
    assert.deepEqual(minuteCounts(admitted(rs)), range(1, 10));
    assert.equal((await row(u.userId))!.minute_count, 10);
    // Each daemon ran its first request alone and grouped the 29 that came meanwhile.
    assert.deepEqual(
      [d, d2].map((x, i) => x.deps.keyCounter.stats.statements - before[i]!.statements),
      [2, 2],
    );
  });

  it('requests of two minutes are never counted together: each counts in its own window', async () => {
    const u = await createTenant(d, 'gc-minutes');
    const hash = hashApiKey(u.key);
    const late = new Date(Math.floor(t / MINUTE) * MINUTE + MINUTE - 1);
    const next = new Date(late.getTime() + 1);
    const rs = await Promise.all([late, late, late, next, next, next].map((now) => d.deps.keyCounter.count(hash, now)));
    assert.deepEqual(
      rs.map((r) => [r!.counter!.minute_start.getTime(), r!.counter!.minute_count]),
      [
        [late.getTime() - (MINUTE - 1), 1],
        [late.getTime() - (MINUTE - 1), 2],
        [late.getTime() - (MINUTE - 1), 3],
        [next.getTime(), 1],
        [next.getTime(), 2],
        [next.getTime(), 3],
      ],
    );
  });

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

  it('a bad key in a grouped burst gets its 401 while the others pass', async () => {
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
