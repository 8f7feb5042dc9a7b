import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashApiKey } from '../daemon/src/auth/keys.js';
import { createMember, createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const KEY_FIELDS = [
  'created_at',
  'expires_at',
  'expires_in',
  'grants',
  'is_active',
  'is_full_access',
  'last_used_at',
  'name',
  'prefix',
  'rate_tier',
  'uuid',
];
const DAY = 86_400_000;

describe('API key management', () => {
  let d: TestDaemon;
  let t: Tenant;
  let stranger: Tenant;
  let req: ReturnType<typeof http>;
  let own: { uuid: string; slug: string };
  let own2: { uuid: string; slug: string };
  let subscribed: { uuid: string; slug: string };
  let strangerPrivate: { uuid: string; slug: string };
  let n = 0;

  before(async () => {
    d = await startTestDaemon({ label: 'keys' });
    t = await createTenant(d, 'keys');
    stranger = await createTenant(d, 'stranger');
    req = http(d.url);
    const mk = async (key: string, name: string, isPublic = false) => {
      const r = await req('POST', '/api/v1/collections/', { key, json: { name, is_public: isPublic } });
      assert.equal(r.status, 201, r.text);
      return r.body;
    };
    own = await mk(t.key, 'Key Test Own');
    own2 = await mk(t.key, 'Key Test Own Two');
    subscribed = await mk(stranger.key, 'Stranger Public', true);
    strangerPrivate = await mk(stranger.key, 'Stranger Private');
    assert.equal((await req('POST', `/api/v1/collections/${subscribed.slug}/subscribe/`, { key: t.key })).status, 200);
  });
  after(async () => d?.close());

  async function createKey(json: Record<string, unknown> = {}, key = t.key) {
    const r = await req('POST', '/api/v1/keys/', { key, json: { name: `key ${++n}`, ...json } });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
  }
  const whoami = (key: string) => req('GET', '/api/v1/keys/current/', { key });
  const near = (iso: string | null, expected: number, label: string) => {
    assert.ok(iso, `${label}: expires_at missing`);
    assert.ok(Math.abs(Date.parse(iso) - expected) < 120_000, `${label}: ${iso} vs ${new Date(expected).toISOString()}`);
  };

  describe('create', () => {
    it('201 with the key once, defaults: not full access, never expires, no grants', async () => {
      const r = await req('POST', '/api/v1/keys/', { key: t.key, json: { name: 'ci' } });
      assert.equal(r.status, 201);
      assert.deepEqual(Object.keys(r.body).sort(), [...KEY_FIELDS, 'key'].sort());
      assert.match(r.body.key, /^svc_[A-Za-z0-9]{40}$/);
      assert.equal(r.body.prefix, r.body.key.slice(0, r.body.prefix.length));
      assert.ok(r.body.prefix.startsWith('svc_') && r.body.prefix.length < r.body.key.length);
      assert.equal(r.body.name, 'ci');
      assert.equal(r.body.is_active, true);
      assert.equal(r.body.is_full_access, false);
      assert.equal(r.body.expires_in, 'never');
      assert.equal(r.body.expires_at, null);
      assert.deepEqual(r.body.grants, []);
      assert.equal(r.body.rate_tier, 'free');
      const rows = await d.deps.sql`select key_hash from api_keys where id = ${r.body.uuid}`;
      assert.deepEqual(rows[0]!.key_hash, hashApiKey(r.body.key));
      const me = await whoami(r.body.key);
      assert.equal(me.status, 200);
      assert.equal(me.body.uuid, r.body.uuid);
    });

    it('is_full_access and collections (granted read)', async () => {
      const full = await createKey({ is_full_access: true });
      assert.equal(full.is_full_access, true);
      const ids = (await req('GET', '/api/v1/collections/', { key: full.key })).body.map((c: { uuid: string }) => c.uuid);
      assert.ok(ids.includes(own.uuid) && ids.includes(subscribed.uuid));

      const scoped = await createKey({ collections: [own.slug, subscribed.slug, own.slug] });
      assert.deepEqual(
        scoped.grants,
        [
          { collection: own.slug, permission: 'read' },
          { collection: subscribed.slug, permission: 'read' },
        ].sort((a, b) => a.collection.localeCompare(b.collection)),
      );
      const list = (await req('GET', '/api/v1/collections/', { key: scoped.key })).body.map((c: { uuid: string }) => c.uuid).sort();
      assert.deepEqual(list, [own.uuid, subscribed.uuid].sort());
    });

    it('inherits the creating key’s rate tier', async () => {
      const u = await createTenant(d, 'tiered');
      await d.deps.sql`update api_keys set rate_tier = 'pro' where key_hash = ${hashApiKey(u.key)}`;
      const r = await req('POST', '/api/v1/keys/', { key: u.key, json: { name: 'child' } });
      assert.equal(r.body.rate_tier, 'pro');
    });

    it('expires_in: 30d, 90d, 6m, 1y, never', async () => {
      const now = d.deps.clock.now();
      const months = (m: number) => {
        const x = new Date(now.getTime());
        x.setUTCMonth(x.getUTCMonth() + m);
        return x.getTime();
      };
      const expected: Record<string, number | null> = {
        '30d': now.getTime() + 30 * DAY,
        '90d': now.getTime() + 90 * DAY,
        '6m': months(6),
        '1y': months(12),
        never: null,
      };
      for (const [choice, at] of Object.entries(expected)) {
        const k = await createKey({ expires_in: choice });
        assert.equal(k.expires_in, choice);
        if (at === null) assert.equal(k.expires_at, null);
        else near(k.expires_at, at, choice);
        assert.equal((await whoami(k.key)).status, 200, choice);
      }
    });

    it('a collection the user cannot see → 404 COLLECTION_NOT_FOUND and no key is created', async () => {
      const before = await d.deps.sql`select count(*)::int as n from api_keys`;
      for (const slug of [strangerPrivate.slug, 'no-such-collection', '%00', 'a\u0000b']) {
        const r = await req('POST', '/api/v1/keys/', { key: t.key, json: { name: 'x', collections: [own.slug, slug] } });
        assertError(r, 404, 'COLLECTION_NOT_FOUND');
      }
      const afterCount = await d.deps.sql`select count(*)::int as n from api_keys`;
      assert.equal(afterCount[0]!.n, before[0]!.n);
    });

    it('missing or empty name → 400 NAME_REQUIRED with fields.name', async () => {
      for (const json of [{}, { name: '' }, { name: '   ' }, { name: null }, { is_full_access: true }]) {
        const r = await req('POST', '/api/v1/keys/', { key: t.key, json });
        assertError(r, 400, 'NAME_REQUIRED');
        assert.ok(r.body.fields?.name?.length, r.text);
      }
    });

    it('other invalid input → 400 VALIDATION_FAILED', async () => {
      const cases: [unknown, string][] = [
        [{ name: 'x', expires_in: '7d' }, 'expires_in'],
        [{ name: 'x', expires_in: 30 }, 'expires_in'],
        [{ name: 'x', expires_in: null }, 'expires_in'],
        [{ name: 'x', expires_in: '1Y' }, 'expires_in'],
        [{ name: 'x', is_full_access: 'true' }, 'is_full_access'],
        [{ name: 'x', collections: 'abc' }, 'collections'],
        [{ name: 'x', key_hash: 'abc' }, 'key_hash'],
        [{ name: 'x', rate_tier: 'pro' }, 'rate_tier'],
        [{ name: 'n'.repeat(101) }, 'name'],
        [{ expires_in: 'soon' }, 'expires_in'],
      ];
      for (const [json, field] of cases) {
        const r = await req('POST', '/api/v1/keys/', { key: t.key, json });
        assertError(r, 400, 'VALIDATION_FAILED');
        assert.ok(r.body.fields?.[field], `${JSON.stringify(json)} → ${r.text}`);
      }
      for (const body of ['{', '', 'null']) {
        const r = await req('POST', '/api/v1/keys/', { key: t.key, body, headers: { 'content-type': 'application/json' } });
        assert.equal(r.status, 400, r.text);
        assert.ok(['VALIDATION_FAILED', 'NAME_REQUIRED'].includes(r.body.code));
      }
      const plain = await req('POST', '/api/v1/keys/', { key: t.key, body: 'name=x', headers: { 'content-type': 'text/plain' } });
      assert.equal(plain.status, 400);
      const nul = await req('POST', '/api/v1/keys/', { key: t.key, json: { name: 'a\u0000b' } });
      assert.equal(nul.status, 400, nul.text);
    });
  });

  describe('list', () => {
    it('shows every key of the user, newest first, never the secret or hash', async () => {
      const secrets = [t.key];
      for (let i = 0; i < 3; i++) secrets.push((await createKey({ collections: [own.slug] })).key);
      const r = await req('GET', '/api/v1/keys/', { key: t.key });
      assert.equal(r.status, 200);
      for (const s of secrets) {
        assert.ok(!r.text.includes(s), 'secret leaked in list');
        assert.ok(!r.text.includes(hashApiKey(s).toString('hex')), 'hash leaked');
        assert.ok(!r.text.includes(hashApiKey(s).toString('base64')), 'hash leaked');
      }
      for (const k of r.body) assert.deepEqual(Object.keys(k).sort(), KEY_FIELDS);
      const times = r.body.map((k: { created_at: string }) => Date.parse(k.created_at));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
      );
      const rows = await d.deps.sql`select id from api_keys where user_id = ${t.userId}`;
      assert.deepEqual(r.body.map((k: { uuid: string }) => k.uuid).sort(), rows.map((x) => x.id).sort());
      assert.ok(r.body.some((k: { grants: unknown[] }) => k.grants.length === 1));
    });

    it('GET /api/v1/keys/current/ works for full and scoped keys and carries no secret', async () => {
      const scoped = await createKey({ collections: [own.slug] });
      const r = await whoami(scoped.key);
      assert.equal(r.status, 200);
      assert.equal(r.body.uuid, scoped.uuid);
      assert.equal(r.body.is_full_access, false);
      assert.deepEqual(r.body.grants, [{ collection: own.slug, permission: 'read' }]);
      assert.equal(r.body.user.uuid, t.userId);
      assert.equal(r.body.organization.uuid, t.orgId);
      assert.ok(!('key' in r.body) && !r.text.includes(scoped.key));
      const full = await whoami(t.key);
      assert.equal(full.status, 200);
      assert.equal(full.body.is_full_access, true);
    });
  });

  describe('update and revoke', () => {
    it('PATCH renames and sets a new expiry counted from now', async () => {
      const k = await createKey();
      const r = await req('PATCH', `/api/v1/keys/${k.uuid}/`, { key: t.key, json: { name: 'renamed', expires_in: '30d' } });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), KEY_FIELDS);
      assert.equal(r.body.name, 'renamed');
      assert.equal(r.body.expires_in, '30d');
      near(r.body.expires_at, d.deps.clock.now().getTime() + 30 * DAY, '30d');
      const back = await req('PATCH', `/api/v1/keys/${k.uuid}/`, { key: t.key, json: { expires_in: 'never' } });
      assert.equal(back.body.expires_at, null);
      assert.equal(back.body.name, 'renamed');
      assert.equal((await whoami(k.key)).status, 200, 'secret unchanged');
    });

    it('PATCH expires_in renews an expired key with the same secret', async () => {
      const k = await createKey({ expires_in: '30d' });
      await d.deps.sql`update api_keys set expires_at = now() - interval '1 day' where id = ${k.uuid}`;
      assertError(await whoami(k.key), 401, 'API_KEY_EXPIRED');
      const r = await req('PATCH', `/api/v1/keys/${k.uuid}/`, { key: t.key, json: { expires_in: '90d' } });
      assert.equal(r.status, 200);
      near(r.body.expires_at, d.deps.clock.now().getTime() + 90 * DAY, '90d');
      const me = await whoami(k.key);
      assert.equal(me.status, 200);
      assert.equal(me.body.uuid, k.uuid);
    });

    it('PATCH validation and lookup errors', async () => {
      const k = await createKey();
      for (const json of [{ expires_in: '2w' }, { name: '' }, { is_full_access: true }, { rate_tier: 'pro' }]) {
        assertError(await req('PATCH', `/api/v1/keys/${k.uuid}/`, { key: t.key, json }), 400, 'VALIDATION_FAILED');
      }
      const other = await req('GET', '/api/v1/keys/', { key: stranger.key });
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', other.body[0].uuid]) {
        assertError(await req('PATCH', `/api/v1/keys/${id}/`, { key: t.key, json: { name: 'x' } }), 404, 'API_KEY_NOT_FOUND');
      }
      const unchanged = await req('GET', '/api/v1/keys/', { key: stranger.key });
      assert.deepEqual(unchanged.body, other.body);
    });

    it('DELETE revokes: 200 inactive record, the key answers 401 INVALID_API_KEY at once; idempotent', async () => {
      const k = await createKey({ collections: [own.slug] });
      assert.equal((await whoami(k.key)).status, 200);
      const r = await req('DELETE', `/api/v1/keys/${k.uuid}/`, { key: t.key });
      assert.equal(r.status, 200);
      assert.equal(r.body.uuid, k.uuid);
      assert.equal(r.body.is_active, false);
      assert.ok(!r.text.includes(k.key));
      assertError(await whoami(k.key), 401, 'INVALID_API_KEY');
      assertError(await req('GET', '/api/v1/collections/', { key: k.key }), 401, 'INVALID_API_KEY');
      assert.equal((await req('DELETE', `/api/v1/keys/${k.uuid}/`, { key: t.key })).status, 200);
      const list = await req('GET', '/api/v1/keys/', { key: t.key });
      assert.equal(list.body.find((x: { uuid: string }) => x.uuid === k.uuid).is_active, false);
      // A new expiry does not bring a revoked key back.
      await req('PATCH', `/api/v1/keys/${k.uuid}/`, { key: t.key, json: { expires_in: '1y' } });
      assertError(await whoami(k.key), 401, 'INVALID_API_KEY');
    });

    it('DELETE of an unknown or foreign key → 404 API_KEY_NOT_FOUND and nothing changes', async () => {
      const foreign = (await req('GET', '/api/v1/keys/', { key: stranger.key })).body[0].uuid;
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', foreign]) {
        assertError(await req('DELETE', `/api/v1/keys/${id}/`, { key: t.key }), 404, 'API_KEY_NOT_FOUND');
      }
      assert.equal((await whoami(stranger.key)).status, 200);
    });
  });

  describe('rotate', () => {
    it('201 with a new uuid and secret; the old key stops at once; name, grants, permissions, scope, tier and expiry choice carry over', async () => {
      const k = await createKey({ collections: [own.slug, subscribed.slug], expires_in: '90d' });
      assert.equal(
        (await req('POST', `/api/v1/keys/${k.uuid}/collections/`, { key: t.key, json: { collection: own2.slug, permission: 'write' } }))
          .status,
        201,
      );
      await d.deps.sql`update api_keys set rate_tier = 'basic' where id = ${k.uuid}`;
      const before = (await req('GET', `/api/v1/keys/${k.uuid}/collections/`, { key: t.key })).body;
      assert.equal(before.length, 3);

      const r = await req('POST', `/api/v1/keys/${k.uuid}/rotate/`, { key: t.key });
      assert.equal(r.status, 201);
      assert.deepEqual(Object.keys(r.body).sort(), [...KEY_FIELDS, 'key'].sort());
      assert.notEqual(r.body.uuid, k.uuid);
      assert.notEqual(r.body.key, k.key);
      assert.match(r.body.key, /^svc_[A-Za-z0-9]{40}$/);
      assert.equal(r.body.prefix, r.body.key.slice(0, r.body.prefix.length));
      assert.equal(r.body.name, k.name);
      assert.equal(r.body.is_active, true);
      assert.equal(r.body.is_full_access, false);
      assert.equal(r.body.rate_tier, 'basic');
      assert.equal(r.body.expires_in, '90d');
      near(r.body.expires_at, d.deps.clock.now().getTime() + 90 * DAY, 'rotated 90d');
      assert.deepEqual(r.body.grants, before);
      assert.deepEqual((await req('GET', `/api/v1/keys/${r.body.uuid}/collections/`, { key: t.key })).body, before);

      assertError(await whoami(k.key), 401, 'INVALID_API_KEY');
      const me = await whoami(r.body.key);
      assert.equal(me.status, 200);
      assert.equal(me.body.uuid, r.body.uuid);
      const visible = (await req('GET', '/api/v1/collections/', { key: r.body.key })).body.map((c: { uuid: string }) => c.uuid).sort();
      assert.deepEqual(visible, [own.uuid, own2.uuid, subscribed.uuid].sort());

      const list = (await req('GET', '/api/v1/keys/', { key: t.key })).body;
      assert.equal(list.find((x: { uuid: string }) => x.uuid === k.uuid).is_active, false);
      assert.ok(!JSON.stringify(list).includes(r.body.key));
      // The old record cannot be rotated again.
      const again = await req('POST', `/api/v1/keys/${k.uuid}/rotate/`, { key: t.key });
      assert.equal(again.status, 400, again.text);
      assertError(await whoami(k.key), 401, 'INVALID_API_KEY');
    });

    it('rotates a full-access key, including the calling key itself', async () => {
      const full = await createKey({ is_full_access: true });
      const r = await req('POST', `/api/v1/keys/${full.uuid}/rotate/`, { key: full.key });
      assert.equal(r.status, 201);
      assert.equal(r.body.is_full_access, true);
      assert.equal(r.body.expires_in, 'never');
      assert.equal(r.body.expires_at, null);
      assertError(await whoami(full.key), 401, 'INVALID_API_KEY');
      assert.equal((await req('GET', '/api/v1/keys/', { key: r.body.key })).status, 200);
    });

    it('unknown key, another user’s key, a colleague’s key → 404 API_KEY_NOT_FOUND', async () => {
      const colleague = await createMember(d, t, 'colleague');
      const foreign = (await req('GET', '/api/v1/keys/', { key: stranger.key })).body[0].uuid;
      const colleagues = (await req('GET', '/api/v1/keys/', { key: colleague.key })).body[0].uuid;
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', foreign, colleagues]) {
        assertError(await req('POST', `/api/v1/keys/${id}/rotate/`, { key: t.key }), 404, 'API_KEY_NOT_FOUND');
      }
      assert.equal((await whoami(stranger.key)).status, 200);
      assert.equal((await whoami(colleague.key)).status, 200);
    });
  });

  describe('grants', () => {
    it('GET, POST (201 create, 200 update), DELETE (204) and their effect on visibility', async () => {
      const k = await createKey();
      const base = `/api/v1/keys/${k.uuid}/collections/`;
      assert.deepEqual((await req('GET', base, { key: t.key })).body, []);
      assert.deepEqual((await req('GET', '/api/v1/collections/', { key: k.key })).body, []);

      const c1 = await req('POST', base, { key: t.key, json: { collection: own.slug } });
      assert.equal(c1.status, 201);
      assert.deepEqual(c1.body, { collection: own.slug, permission: 'read' });
      assert.deepEqual(
        (await req('GET', '/api/v1/collections/', { key: k.key })).body.map((c: { uuid: string }) => c.uuid),
        [own.uuid],
      );

      const up = await req('POST', base, { key: t.key, json: { collection: own.slug, permission: 'write' } });
      assert.equal(up.status, 200);
      assert.deepEqual(up.body, { collection: own.slug, permission: 'write' });
      const same = await req('POST', base, { key: t.key, json: { collection: own.slug, permission: 'write' } });
      assert.equal(same.status, 200);
      const down = await req('POST', base, { key: t.key, json: { collection: own.slug } });
      assert.equal(down.status, 200);
      assert.deepEqual(down.body, { collection: own.slug, permission: 'read' }, 'omitted permission means read');

      assert.equal((await req('POST', base, { key: t.key, json: { collection: subscribed.slug, permission: 'read' } })).status, 201);
      const g = await req('GET', base, { key: t.key });
      assert.equal(g.status, 200);
      assert.deepEqual(
        [...g.body].sort((a: { collection: string }, b: { collection: string }) => a.collection.localeCompare(b.collection)),
        [
          { collection: own.slug, permission: 'read' },
          { collection: subscribed.slug, permission: 'read' },
        ].sort((a, b) => a.collection.localeCompare(b.collection)),
      );

      const del = await req('DELETE', `${base}${own.slug}/`, { key: t.key });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      assert.deepEqual((await req('GET', base, { key: t.key })).body, [{ collection: subscribed.slug, permission: 'read' }]);
      assertError(await req('GET', `/api/v1/collections/${own.uuid}/`, { key: k.key }), 404, 'COLLECTION_NOT_FOUND');
      assertError(await req('DELETE', `${base}${own.slug}/`, { key: t.key }), 404, 'GRANT_NOT_FOUND');
      assertError(await req('DELETE', `${base}no-such-collection/`, { key: t.key }), 404, 'GRANT_NOT_FOUND');
      assertError(await req('DELETE', `${base}${strangerPrivate.slug}/`, { key: t.key }), 404, 'GRANT_NOT_FOUND');
    });

    it('unknown or foreign key → 404 API_KEY_NOT_FOUND on every grant endpoint', async () => {
      const foreign = (await req('GET', '/api/v1/keys/', { key: stranger.key })).body[0].uuid;
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', foreign]) {
        const base = `/api/v1/keys/${id}/collections/`;
        assertError(await req('GET', base, { key: t.key }), 404, 'API_KEY_NOT_FOUND');
        assertError(await req('POST', base, { key: t.key, json: { collection: own.slug } }), 404, 'API_KEY_NOT_FOUND');
        assertError(await req('DELETE', `${base}${own.slug}/`, { key: t.key }), 404, 'API_KEY_NOT_FOUND');
      }
    });

    it('a grant may only name a collection visible to the key’s owner → else 404 COLLECTION_NOT_FOUND', async () => {
      const k = await createKey();
      const deleted = await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Soon Deleted' } });
      await req('DELETE', `/api/v1/collections/${deleted.body.uuid}/`, { key: t.key });
      const unsubscribedPublic = await req('POST', '/api/v1/collections/', {
        key: stranger.key,
        json: { name: 'Not Subscribed', is_public: true },
      });
      for (const slug of [strangerPrivate.slug, unsubscribedPublic.body.slug, deleted.body.slug, 'no-such-collection', 'a\u0000b']) {
        const r = await req('POST', `/api/v1/keys/${k.uuid}/collections/`, { key: t.key, json: { collection: slug, permission: 'read' } });
        assertError(r, 404, 'COLLECTION_NOT_FOUND');
      }
      assert.deepEqual((await req('GET', `/api/v1/keys/${k.uuid}/collections/`, { key: t.key })).body, []);
    });

    it('write grant on a subscribed (not owned) collection → 400; an existing read grant stays read', async () => {
      const k = await createKey({ collections: [subscribed.slug] });
      const r = await req('POST', `/api/v1/keys/${k.uuid}/collections/`, {
        key: t.key,
        json: { collection: subscribed.slug, permission: 'write' },
      });
      assertError(r, 400, 'VALIDATION_FAILED');
      assert.ok(r.body.fields?.permission);
      assert.deepEqual((await req('GET', `/api/v1/keys/${k.uuid}/collections/`, { key: t.key })).body, [
        { collection: subscribed.slug, permission: 'read' },
      ]);
      const fresh = await createKey();
      assertError(
        await req('POST', `/api/v1/keys/${fresh.uuid}/collections/`, {
          key: t.key,
          json: { collection: subscribed.slug, permission: 'write' },
        }),
        400,
        'VALIDATION_FAILED',
      );
      assert.deepEqual((await req('GET', `/api/v1/keys/${fresh.uuid}/collections/`, { key: t.key })).body, []);
    });

    it('grant body validation → 400 VALIDATION_FAILED', async () => {
      const k = await createKey();
      for (const json of [
        {},
        { collection: '' },
        { collection: own.slug, permission: 'admin' },
        { collection: own.slug, extra: 1 },
        { collection: 5 },
      ]) {
        assertError(await req('POST', `/api/v1/keys/${k.uuid}/collections/`, { key: t.key, json }), 400, 'VALIDATION_FAILED');
      }
    });
  });

  describe('scoped keys', () => {
    it('403 SCOPED_KEY_FORBIDDEN on every key-management endpoint, and nothing changes', async () => {
      const scoped = await createKey({ collections: [own.slug] });
      await req('POST', `/api/v1/keys/${scoped.uuid}/collections/`, { key: t.key, json: { collection: own.slug, permission: 'write' } });
      const sibling = await createKey({ collections: [own.slug] });
      const before = (await req('GET', '/api/v1/keys/', { key: t.key })).body;
      for (const target of [scoped.uuid, sibling.uuid]) {
        const cases: [string, string, unknown?][] = [
          ['GET', '/api/v1/keys/'],
          ['POST', '/api/v1/keys/', { name: 'escalate', is_full_access: true }],
          ['POST', '/api/v1/keys/', { name: 'escalate', collections: [own.slug] }],
          ['PATCH', `/api/v1/keys/${target}/`, { expires_in: 'never' }],
          ['DELETE', `/api/v1/keys/${target}/`],
          ['POST', `/api/v1/keys/${target}/rotate/`],
          ['GET', `/api/v1/keys/${target}/collections/`],
          ['POST', `/api/v1/keys/${target}/collections/`, { collection: own2.slug, permission: 'write' }],
          ['POST', `/api/v1/keys/${target}/collections/`, { collection: own.slug, permission: 'write' }],
          ['DELETE', `/api/v1/keys/${target}/collections/${own.slug}/`],
        ];
        for (const [method, path, json] of cases) {
          const r = await req(method, path, { key: scoped.key, ...(json === undefined ? {} : { json }) });
          assertError(r, 403, 'SCOPED_KEY_FORBIDDEN');
        }
      }
      assert.deepEqual(
        (await req('GET', '/api/v1/keys/', { key: t.key })).body.map((k: any) => ({ ...k, last_used_at: null })),
        before.map((k: any) => ({ ...k, last_used_at: null })),
      );
      assert.equal((await whoami(scoped.key)).status, 200);
    });

    it('what the key’s user cannot see is 404 before the scope check (never a 403 that confirms existence)', async () => {
      const scoped = await createKey({ collections: [own.slug] });
      const cases: [string, string, unknown?][] = [
        ['POST', '/api/v1/keys/', { name: 'x', collections: [strangerPrivate.slug] }],
        ['POST', `/api/v1/keys/${scoped.uuid}/collections/`, { collection: strangerPrivate.slug }],
      ];
      for (const [method, path, json] of cases) {
        assertError(await req(method, path, { key: scoped.key, json }), 404, 'COLLECTION_NOT_FOUND');
      }
      assertError(
        await req('DELETE', `/api/v1/keys/${scoped.uuid}/collections/${strangerPrivate.slug}/`, { key: scoped.key }),
        404,
        'GRANT_NOT_FOUND',
      );
      const foreign = (await req('GET', '/api/v1/keys/', { key: stranger.key })).body[0].uuid;
      assertError(await req('POST', `/api/v1/keys/${foreign}/rotate/`, { key: scoped.key }), 404, 'API_KEY_NOT_FOUND');
    });
  });
});
