import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

interface Coll {
  uuid: string;
  slug: string;
  name: string;
}

describe('subscriptions', () => {
  let d: TestDaemon;
  let owner: Tenant;
  let reader: Tenant;
  let req: ReturnType<typeof http>;
  let n = 0;

  before(async () => {
    d = await startTestDaemon({ label: 'subscriptions' });
    owner = await createTenant(d, 'sub-owner');
    reader = await createTenant(d, 'sub-reader');
    req = http(d.url);
  });
  after(async () => d?.close());

  async function create(key: string, isPublic: boolean): Promise<Coll> {
    const r = await req('POST', '/api/v1/collections/', { key, json: { name: `Shared ${++n}`, is_public: isPublic } });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  const subscribe = (key: string, slug: string) => req('POST', `/api/v1/collections/${slug}/subscribe/`, { key });
  const unsubscribe = (key: string, slug: string) => req('DELETE', `/api/v1/collections/${slug}/subscribe/`, { key });
  const listIds = async (key: string) => (await req('GET', '/api/v1/collections/', { key })).body.map((c: Coll) => c.uuid);
  async function scopedKey(key: string, collections: string[]): Promise<{ key: string; uuid: string }> {
    const r = await req('POST', '/api/v1/keys/', { key, json: { name: 'scoped', collections } });
    assert.equal(r.status, 201, r.text);
    return { key: r.body.key, uuid: r.body.uuid };
  }
  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code);
    assert.equal(typeof r.body.error, 'string');
  }

  it('subscribe: 200 {status: subscribed, collection: slug}; the collection becomes visible', async () => {
    const c = await create(owner.key, true);
    assert.ok(!(await listIds(reader.key)).includes(c.uuid));
    assertError(await req('GET', `/api/v1/collections/${c.uuid}/`, { key: reader.key }), 404, 'COLLECTION_NOT_FOUND');

    const r = await subscribe(reader.key, c.slug);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'subscribed', collection: c.slug });

    assert.ok((await listIds(reader.key)).includes(c.uuid));
    const g = await req('GET', `/api/v1/collections/${c.uuid}/`, { key: reader.key });
    assert.equal(g.status, 200);
    assert.equal(g.body.is_subscribed, true);
    assert.equal(g.body.slug, c.slug);
  });

  it('subscribing twice is idempotent', async () => {
    const c = await create(owner.key, true);
    assert.equal((await subscribe(reader.key, c.slug)).status, 200);
    const again = await subscribe(reader.key, c.slug);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { status: 'subscribed', collection: c.slug });
    const rows = await d.deps.sql`select 1 from subscriptions where user_id = ${reader.userId} and collection_id = ${c.uuid}`;
    assert.equal(rows.length, 1);
  });

  it('unsubscribe: 200 {status: unsubscribed, collection: slug}; the collection disappears', async () => {
    const c = await create(owner.key, true);
    await subscribe(reader.key, c.slug);
    const r = await unsubscribe(reader.key, c.slug);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'unsubscribed', collection: c.slug });
    assert.ok(!(await listIds(reader.key)).includes(c.uuid));
    assertError(await req('GET', `/api/v1/collections/${c.uuid}/`, { key: reader.key }), 404, 'COLLECTION_NOT_FOUND');
    assertError(await unsubscribe(reader.key, c.slug), 404, 'SUBSCRIPTION_NOT_FOUND');
  });

  it('404 COLLECTION_NOT_FOUND for an absent, private or deleted collection', async () => {
    const priv = await create(owner.key, false);
    const gone = await create(owner.key, true);
    assert.equal((await req('DELETE', `/api/v1/collections/${gone.uuid}/`, { key: owner.key })).status, 204);
    for (const slug of ['no-such-collection', priv.slug, gone.slug, priv.uuid]) {
      assertError(await subscribe(reader.key, slug), 404, 'COLLECTION_NOT_FOUND');
    }
    const rows = await d.deps
      .sql`select 1 from subscriptions where user_id = ${reader.userId} and collection_id in ${d.deps.sql([priv.uuid, gone.uuid])}`;
    assert.equal(rows.length, 0);
  });

  it('private and absent collections answer identically (no existence oracle)', async () => {
    const priv = await create(owner.key, false);
    const a = await subscribe(reader.key, priv.slug);
    const b = await subscribe(reader.key, 'never-existed-xyz');
    assert.equal(a.status, b.status);
    assert.equal(a.body.code, b.body.code);
    assert.equal(a.body.error, b.body.error);
  });

  it('odd slugs are plain 404s, never 500', async () => {
    for (const slug of ['%00', 'a%00b', 'UPPER', 'x'.repeat(2000), '%E2%98%83', "'%3B--"]) {
      assertError(await subscribe(reader.key, slug), 404, 'COLLECTION_NOT_FOUND');
      assertError(await unsubscribe(reader.key, slug), 404, 'SUBSCRIPTION_NOT_FOUND');
    }
  });

  it('404 SUBSCRIPTION_NOT_FOUND on DELETE without a subscription', async () => {
    const pub = await create(owner.key, true);
    const priv = await create(owner.key, false);
    for (const slug of [pub.slug, priv.slug, 'no-such-collection']) {
      assertError(await unsubscribe(reader.key, slug), 404, 'SUBSCRIPTION_NOT_FOUND');
    }
    // The owner never holds a subscription to its own collection.
    assertError(await unsubscribe(owner.key, pub.slug), 404, 'SUBSCRIPTION_NOT_FOUND');
  });

  it('subscribing to your own collection (public or private) is a no-op 200', async () => {
    for (const isPublic of [true, false]) {
      const c = await create(owner.key, isPublic);
      const r = await subscribe(owner.key, c.slug);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { status: 'subscribed', collection: c.slug });
      const rows = await d.deps.sql`select 1 from subscriptions where collection_id = ${c.uuid}`;
      assert.equal(rows.length, 0, 'no subscription row for the owner');
      const g = await req('GET', `/api/v1/collections/${c.uuid}/`, { key: owner.key });
      assert.equal(g.body.is_subscribed, false);
    }
  });

  it('public → private hides the collection from subscribers at once: list, get and scoped keys with grants', async () => {
    const c = await create(owner.key, true);
    await subscribe(reader.key, c.slug);
    const scoped = await scopedKey(reader.key, [c.slug]);
    assert.ok((await listIds(reader.key)).includes(c.uuid));
    assert.deepEqual(await listIds(scoped.key), [c.uuid]);
    assert.equal((await req('GET', `/api/v1/collections/${c.uuid}/`, { key: scoped.key })).status, 200);

    const p = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: owner.key, json: { is_public: false } });
    assert.equal(p.status, 200);
    assert.equal(p.body.is_public, false);

    assert.ok(!(await listIds(reader.key)).includes(c.uuid));
    assert.deepEqual(await listIds(scoped.key), []);
    for (const key of [reader.key, scoped.key]) {
      assertError(await req('GET', `/api/v1/collections/${c.uuid}/`, { key }), 404, 'COLLECTION_NOT_FOUND');
      assertError(await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key, json: { name: 'x' } }), 404, 'COLLECTION_NOT_FOUND');
      assertError(await req('DELETE', `/api/v1/collections/${c.uuid}/`, { key }), 404, 'COLLECTION_NOT_FOUND');
    }
    // Re-subscribing is refused like for any private collection, and no new grant can name it.
    assertError(await subscribe(reader.key, c.slug), 404, 'COLLECTION_NOT_FOUND');
    const grant = await req('POST', `/api/v1/keys/${scoped.uuid}/collections/`, { key: reader.key, json: { collection: c.slug } });
    assertError(grant, 404, 'COLLECTION_NOT_FOUND');
    const newKey = await req('POST', '/api/v1/keys/', { key: reader.key, json: { name: 'late', collections: [c.slug] } });
    assertError(newKey, 404, 'COLLECTION_NOT_FOUND');
    // The owner is unaffected.
    assert.equal((await req('GET', `/api/v1/collections/${c.uuid}/`, { key: owner.key })).status, 200);
  });

  it('unsubscribing also drops the user’s key grants on that collection', async () => {
    const c = await create(owner.key, true);
    await subscribe(reader.key, c.slug);
    const scoped = await scopedKey(reader.key, [c.slug]);
    assert.equal((await unsubscribe(reader.key, c.slug)).status, 200);
    const grants = await req('GET', `/api/v1/keys/${scoped.uuid}/collections/`, { key: reader.key });
    assert.deepEqual(grants.body, []);
    // Re-subscribing does not silently restore the scoped key's access.
    await subscribe(reader.key, c.slug);
    assert.deepEqual(await listIds(scoped.key), []);
  });

  it('scoped keys: 403 SCOPED_KEY_FORBIDDEN on subscribe and unsubscribe', async () => {
    const mine = await create(reader.key, false);
    const pub = await create(owner.key, true);
    const subscribed = await create(owner.key, true);
    await subscribe(reader.key, subscribed.slug);
    for (const grants of [[mine.slug], [subscribed.slug]]) {
      const scoped = await scopedKey(reader.key, grants);
      assertError(await subscribe(scoped.key, pub.slug), 403, 'SCOPED_KEY_FORBIDDEN');
      assertError(await unsubscribe(scoped.key, subscribed.slug), 403, 'SCOPED_KEY_FORBIDDEN');
    }
    const rows = await d.deps.sql`select 1 from subscriptions where user_id = ${reader.userId} and collection_id = ${pub.uuid}`;
    assert.equal(rows.length, 0);
    assert.ok((await listIds(reader.key)).includes(subscribed.uuid), 'still subscribed');
  });

  it('scoped keys asking about private collections of others still get 404, not 403', async () => {
    const priv = await create(owner.key, false);
    const mine = await create(reader.key, false);
    const scoped = await scopedKey(reader.key, [mine.slug]);
    assertError(await subscribe(scoped.key, priv.slug), 404, 'COLLECTION_NOT_FOUND');
    assertError(await subscribe(scoped.key, 'no-such-collection'), 404, 'COLLECTION_NOT_FOUND');
  });

  it('requires a credential', async () => {
    const c = await create(owner.key, true);
    assertError(await req('POST', `/api/v1/collections/${c.slug}/subscribe/`), 401, 'AUTHENTICATION_REQUIRED');
    assertError(await req('DELETE', `/api/v1/collections/${c.slug}/subscribe/`), 401, 'AUTHENTICATION_REQUIRED');
  });
});
