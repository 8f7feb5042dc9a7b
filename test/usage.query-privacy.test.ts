// Who may read the search text in an organization's request log: a user always sees their own
// searches; the organization's owner and admin users see everyone's; other full-access members see
// other members' searches with `query: null` (counts, endpoints and result counts stay visible).
// Checked across users on the REST usage endpoints and on the web usage page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../daemon/src/auth/passwords.js';
import { createUserWithKey } from '../daemon/src/accounts/create.js';
import { createMember, createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'correct horse battery staple';

describe('usage: visibility of search text across users', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let owner: Tenant; // role owner (created the organization), not is_admin
  let alice: Tenant; // full-access member
  let bob: Tenant; // full-access member
  let admin: Tenant; // member with is_admin
  let stranger: Tenant; // another organization
  const said = new Map<string, string>();

  before(async () => {
    d = await startTestDaemon({ label: 'usage_privacy', env: { USAGE_FLUSH_MS: '60000' } });
    req = http(d.url);
    owner = await createTenant(d, 'qp-owner');
    alice = await createMember(d, owner, 'qp-alice');
    bob = await createMember(d, owner, 'qp-bob');
    const a = await createUserWithKey(d.deps.sql, {
      email: `qp-admin-${Date.now()}@example.test`,
      organization: owner.orgId,
      admin: true,
      now: new Date(),
    });
    admin = { orgId: owner.orgId, userId: a.user.id, email: a.user.email, key: a.key };
    stranger = await createTenant(d, 'qp-stranger');
    for (const [name, t] of Object.entries({ owner, alice, bob, admin, stranger })) {
      const query = `secret plans of ${name} ${Date.now()}`;
      said.set(t.userId, query);
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query, mode: 'text' } });
      assert.equal(r.status, 200, r.text);
    }
    await d.deps.usageLog.flush();
  });
  after(async () => d?.close());

  /** user id → the query text the caller sees for that user's search. */
  async function seenBy(t: Tenant, path = '/api/v1/keys/usage/?days=7&recent_limit=100') {
    const r = await req('GET', path, { key: t.key });
    assert.equal(r.status, 200, r.text);
    const keyOwners = new Map<string, string>();
    for (const row of await d.deps.sql<{ id: string; user_id: string }[]>`select id, user_id from api_keys`)
      keyOwners.set(row.id, row.user_id);
    const searches = r.body.recent.items.filter((i: any) => i.endpoint === '/api/v1/search');
    for (const s of searches) assert.equal(s.result_count, 0, 'result counts stay visible');
    return new Map<string, string | null>(searches.map((s: any) => [keyOwners.get(s.key_uuid)!, s.query]));
  }

  it('a full-access member sees their own search text and null for other members’ searches', async () => {
    for (const me of [alice, bob]) {
      const seen = await seenBy(me);
      assert.equal(seen.size, 4, 'every search of the organization is listed');
      for (const [userId, query] of seen) {
        assert.equal(query, userId === me.userId ? said.get(userId) : null, `${me.email} looking at ${userId}`);
      }
      assert.ok(!seen.has(stranger.userId));
    }
  });

  it('the organization’s owner and admin users see everyone’s search text', async () => {
    for (const boss of [owner, admin]) {
      const seen = await seenBy(boss);
      assert.equal(seen.size, 4);
      for (const [userId, query] of seen) assert.equal(query, said.get(userId), `${boss.email} looking at ${userId}`);
    }
  });

  it('a key’s own usage shows its searches; another organization never sees them', async () => {
    const keyId = (await req('GET', '/api/v1/keys/current/', { key: bob.key })).body.uuid;
    const own = await seenBy(bob, `/api/v1/keys/${keyId}/usage/?days=7`);
    assert.deepEqual([...own], [[bob.userId, said.get(bob.userId)]]);
    const other = await seenBy(stranger);
    assert.deepEqual([...other], [[stranger.userId, said.get(stranger.userId)]]);
  });

  it('the web usage page applies the same rule', async () => {
    await d.deps
      .sql`update users set password_hash = ${await hashPassword(PASSWORD)} where id in ${d.deps.sql([alice.userId, admin.userId])}`;
    const pageOf = async (t: Tenant) => {
      const form = await fetch(`${d.url}/app/sign-in`);
      const pre = form.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const signed = await fetch(`${d.url}/app/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
        body: new URLSearchParams({ _csrf: token, email: t.email, password: PASSWORD, next: '/app/' }).toString(),
      });
      assert.equal(signed.status, 303);
      const session = signed.headers
        .getSetCookie()
        .find((c) => c.startsWith('docsift_session='))!
        .split(';')[0]!;
      return (await fetch(`${d.url}/app/usage?days=7`, { headers: { cookie: session } })).text();
    };
    const mine = await pageOf(alice);
    assert.ok(mine.includes(said.get(alice.userId)!), 'alice sees her own search');
    for (const other of [owner, bob, admin]) assert.ok(!mine.includes(said.get(other.userId)!), 'but not other members’');
    assert.match(mine, />\s*hidden\s*</, 'their searches are marked hidden');
    const all = await pageOf(admin);
    for (const t of [owner, alice, bob, admin]) assert.ok(all.includes(said.get(t.userId)!), 'the admin sees every member’s search');
  });
});
