// GET /api/v1/keys/usage/ and /api/v1/keys/{uuid}/usage/: scopes, shapes, zero-filled series,
// pagination of the recent log, validation, and speed over 90 days of a busy organization.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMember, createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const DAY = 86_400_000;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

describe('usage endpoints', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let owner: Tenant;
  let member: Tenant;
  let stranger: Tenant;
  let scoped: { uuid: string; key: string };
  let ownerKeyId: string;

  const usage = (key: string, qs = '') => req('GET', `/api/v1/keys/usage/${qs}`, { key });
  const flush = () => d.deps.usageLog.flush();

  before(async () => {
    d = await startTestDaemon({ label: 'usageapi', env: { USAGE_FLUSH_MS: '60000' } });
    req = http(d.url);
    owner = await createTenant(d, 'uowner');
    member = await createMember(d, owner, 'umember');
    stranger = await createTenant(d, 'ustranger');
    const k = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'scoped reader' } });
    assert.equal(k.status, 201);
    scoped = { uuid: k.body.uuid, key: k.body.key };
    ownerKeyId = (await req('GET', '/api/v1/keys/current/', { key: owner.key })).body.uuid;
    // Traffic: owner 4 (one 404), scoped 3, member 2, stranger 5.
    for (let i = 0; i < 3; i++) await req('GET', '/api/v1/collections/', { key: owner.key });
    await req('GET', '/api/v1/documents/00000000-0000-0000-0000-000000000000/', { key: owner.key });
    for (let i = 0; i < 3; i++) await req('GET', '/api/v1/collections/', { key: scoped.key });
    for (let i = 0; i < 2; i++) await req('GET', '/api/v1/collections/', { key: member.key });
    for (let i = 0; i < 5; i++) await req('GET', '/api/v1/collections/', { key: stranger.key });
    await flush();
  });
  after(async () => d?.close());

  it('full-access key: the whole organization, with the documented shape', async () => {
    const r = await usage(owner.key, '?days=7');
    assert.equal(r.status, 200, r.text);
    const b = r.body;
    assert.deepEqual(Object.keys(b).sort(), [
      'avg_response_time_ms',
      'daily',
      'days',
      'error_count',
      'from',
      'per_key',
      'recent',
      'to',
      'total_requests',
    ]);
    assert.equal(b.days, 7);
    // owner 4 + scoped 3 + member 2 + the key creation and whoami calls of before() (2), none of the stranger's.
    assert.equal(b.total_requests, 11);
    assert.equal(b.error_count, 1);
    assert.ok(b.avg_response_time_ms > 0);
    assert.equal(b.daily.length, 7);
    assert.equal(b.daily[6].date, isoDay(Date.now()));
    assert.equal(b.daily[0].date, isoDay(Date.now() - 6 * DAY));
    assert.deepEqual(
      b.daily.slice(0, 6).map((x: any) => x.requests),
      [0, 0, 0, 0, 0, 0],
    );
    assert.equal(b.daily[6].requests, 11);
    assert.equal(b.daily[6].errors, 1);
    const perKey = Object.fromEntries(b.per_key.map((k: any) => [k.key_uuid, k]));
    assert.equal(perKey[ownerKeyId].requests, 6);
    assert.equal(perKey[ownerKeyId].errors, 1);
    assert.equal(perKey[scoped.uuid].requests, 3);
    assert.equal(perKey[scoped.uuid].name, 'scoped reader');
    assert.ok(perKey[scoped.uuid].prefix.startsWith('svc_'));
    assert.equal(
      b.per_key.reduce((s: number, k: any) => s + k.requests, 0),
      11,
    );
    assert.equal(b.recent.items.length, 11);
    const item = b.recent.items[0];
    assert.deepEqual(Object.keys(item).sort(), [
      'endpoint',
      'key_prefix',
      'key_uuid',
      'method',
      'query',
      'response_time_ms',
      'result_count',
      'status',
      'timestamp',
    ]);
    assert.equal(b.recent.next_cursor, null);
  });

  it('scoped key: its own user only', async () => {
    const r = await usage(scoped.key, '?days=30');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.days, 30);
    assert.equal(r.body.daily.length, 30);
    // The owner user's keys (owner 6, scoped 3), not the member's.
    assert.equal(r.body.total_requests, 9);
    assert.ok(r.body.per_key.every((k: any) => k.key_uuid === ownerKeyId || k.key_uuid === scoped.uuid));
  });

  it('days must be a whole number from 1 to 90 (default 30); bad recent_limit or cursor are 400', async () => {
    assert.equal((await usage(owner.key)).body.days, 30);
    for (const q of ['?days=91', '?days=abc', '?days=', '?recent_limit=0', '?recent_limit=101', '?cursor=nonsense']) {
      const r = await usage(owner.key, q);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'VALIDATION_FAILED', q);
    }
    assert.deepEqual((await usage(owner.key, '?days=91')).body.fields.days, ['days must be a whole number from 1 to 90.']);
  });

  it('recent log pages newest first with a cursor, no gaps or repeats', async () => {
    await flush();
    const all = (await usage(owner.key, '?days=7&recent_limit=100')).body.recent.items;
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await usage(owner.key, `?days=7&recent_limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.recent.items.length <= 4);
      seen.push(...r.body.recent.items);
      cursor = r.body.recent.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, all);
    const times = seen.map((x) => Date.parse(x.timestamp));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  it('one key: own keys only; scoped keys only themselves; keys/usage is not a key uuid', async () => {
    await flush();
    const own = await req('GET', `/api/v1/keys/${scoped.uuid}/usage/?days=7`, { key: owner.key });
    assert.equal(own.status, 200, own.text);
    assert.ok(own.body.total_requests >= 3);
    assert.ok(own.body.per_key.length === 1 && own.body.per_key[0].key_uuid === scoped.uuid);
    assert.ok(own.body.recent.items.every((x: any) => x.key_uuid === scoped.uuid));
    const self = await req('GET', `/api/v1/keys/${scoped.uuid}/usage/`, { key: scoped.key });
    assert.equal(self.status, 200);
    const otherKey = await req('GET', `/api/v1/keys/${ownerKeyId}/usage/`, { key: scoped.key });
    assert.equal(otherKey.status, 403);
    assert.equal(otherKey.body.code, 'SCOPED_KEY_FORBIDDEN');
    assert.match(otherKey.body.error, /usage of other keys/);
    const memberKey = (await req('GET', '/api/v1/keys/current/', { key: member.key })).body.uuid;
    for (const id of [memberKey, '00000000-0000-0000-0000-000000000000', 'not-a-uuid']) {
      const r = await req('GET', `/api/v1/keys/${id}/usage/`, { key: owner.key });
      assert.equal(r.status, 404, id);
      assert.equal(r.body.code, 'API_KEY_NOT_FOUND');
    }
    const strangerView = await req('GET', `/api/v1/keys/${ownerKeyId}/usage/`, { key: stranger.key });
    assert.equal(strangerView.status, 404);
  });

  it('90 days of a busy organization (2.7 million requests) stays fast and exact', async () => {
    const t = await createTenant(d, 'busy');
    const keyId = (await req('GET', '/api/v1/keys/current/', { key: t.key })).body.uuid;
    await flush();
    // 90 past days of rollups at 30,000 requests per day (10 of them errors), and 200,000 raw rows.
    await d.deps.sql`
      insert into usage_daily (key_id, day, organization_id, user_id, requests, errors, total_duration_us, searches, billable_searches)
      select ${keyId}, (now() at time zone 'UTC')::date - g, ${t.orgId}, ${t.userId}, 30000, 10, 30000 * 2500, 100, 100
        from generate_series(1, 90) g`;
    await d.deps.sql`
      insert into request_log (ts, organization_id, user_id, key_id, method, endpoint, status, duration_us)
      select now() - g * interval '1 second', ${t.orgId}, ${t.userId}, ${keyId}, 'GET', '/api/v1/collections', 200, 2500
        from generate_series(1, 200000) g`;
    await d.deps.sql`analyze request_log`;
    await d.deps.sql`analyze usage_daily`;
    const started = performance.now();
    const r = await usage(t.key, '?days=90&recent_limit=50');
    const ms = performance.now() - started;
    assert.equal(r.status, 200);
    assert.equal(r.body.total_requests, 89 * 30000 + 1);
    assert.equal(r.body.error_count, 89 * 10);
    assert.equal(r.body.daily.length, 90);
    // Today and the 89 days before it: the 90th day back is outside the period.
    assert.equal(r.body.daily[0].date, isoDay(Date.now() - 89 * DAY));
    assert.equal(r.body.daily[0].requests, 30000);
    assert.equal(r.body.daily[89].requests, 1);
    assert.equal(r.body.recent.items.length, 50);
    assert.ok(r.body.recent.next_cursor);
    const page2 = await usage(t.key, `?days=90&recent_limit=50&cursor=${r.body.recent.next_cursor}`);
    assert.equal(page2.body.recent.items.length, 50);
    assert.ok(ms < 500, `usage over 90 days took ${ms.toFixed(0)} ms`);
  });
});
