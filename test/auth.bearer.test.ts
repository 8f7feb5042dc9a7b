import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashApiKey } from '../daemon/src/auth/keys.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('bearer authentication', () => {
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  before(async () => {
    d = await startTestDaemon({ label: 'auth' });
    t = await createTenant(d, 'auth');
    req = http(d.url);
  });
  after(async () => d?.close());

  it('accepts a valid key', async () => {
    const r = await req('GET', '/api/v1/keys/', { key: t.key });
    assert.equal(r.status, 200);
    assert.ok(Array.isArray(r.body));
    assert.equal(r.body.length, 1);
    assert.ok(r.headers.get('x-request-id'));
  });

  it('401 AUTHENTICATION_REQUIRED without a credential', async () => {
    const r = await req('GET', '/api/v1/keys/');
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'AUTHENTICATION_REQUIRED');
    assert.equal(typeof r.body.error, 'string');
  });

  it('401 AUTHENTICATION_REQUIRED for a non-Bearer scheme', async () => {
    const r = await req('GET', '/api/v1/keys/', { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'AUTHENTICATION_REQUIRED');
  });

  it('401 INVALID_API_KEY for an unknown key of the right shape and for garbage', async () => {
    const wrong = 'svc_' + 'A'.repeat(40);
    for (const key of [wrong, 'not-a-key', t.key + 'x', t.key.slice(0, -1) + (t.key.endsWith('a') ? 'b' : 'a')]) {
      const r = await req('GET', '/api/v1/keys/', { key });
      assert.equal(r.status, 401, key);
      assert.equal(r.body.code, 'INVALID_API_KEY');
    }
  });

  it('401 API_KEY_EXPIRED once the expiry passed', async () => {
    const other = await createTenant(d, 'expiring');
    await d.deps
      .sql`update api_keys set expires_at = now() - interval '1 minute', expires_in = '30d' where key_hash = ${hashApiKey(other.key)}`;
    const r = await req('GET', '/api/v1/keys/', { key: other.key });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'API_KEY_EXPIRED');
  });

  it('401 USER_ACCOUNT_DISABLED when the owner is inactive', async () => {
    const other = await createTenant(d, 'disabled');
    await d.deps.sql`update users set is_active = false where id = ${other.userId}`;
    const r = await req('GET', '/api/v1/keys/', { key: other.key });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'USER_ACCOUNT_DISABLED');
  });

  it('401 INVALID_API_KEY for a deactivated key', async () => {
    const other = await createTenant(d, 'deactivated');
    await d.deps.sql`update api_keys set is_active = false where key_hash = ${hashApiKey(other.key)}`;
    const r = await req('GET', '/api/v1/keys/', { key: other.key });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'INVALID_API_KEY');
  });

  it('stores only the SHA-256 hash, and the list never shows secret or hash', async () => {
    const rows = await d.deps.sql<
      { key_hash: Buffer; prefix: string }[]
    >`select key_hash, prefix from api_keys where user_id = ${t.userId}`;
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]!.key_hash, hashApiKey(t.key));
    assert.equal(rows[0]!.prefix, t.key.slice(0, 12));
    const r = await req('GET', '/api/v1/keys/', { key: t.key });
    const text = JSON.stringify(r.body);
    assert.ok(!text.includes(t.key), 'secret leaked');
    assert.ok(!text.includes(hashApiKey(t.key).toString('hex')), 'hash leaked');
    assert.ok(!('key' in r.body[0]) && !('key_hash' in r.body[0]));
    assert.match(t.key, /^svc_[A-Za-z0-9]{40}$/);
  });

  it('updates last_used_at', async () => {
    const rows = await d.deps.sql<{ last_used_at: Date | null }[]>`select last_used_at from api_keys where user_id = ${t.userId}`;
    assert.ok(rows[0]!.last_used_at instanceof Date);
  });
});
