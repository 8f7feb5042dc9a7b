import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMember, createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const COLLECTION_FIELDS = [
  'created_at',
  'description',
  'document_count',
  'is_public',
  'is_subscribed',
  'language',
  'name',
  'slug',
  'total_chunks',
  'uuid',
];

describe('collections: create, list, get, update, delete', () => {
  let d: TestDaemon;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let n = 0;
  /** A unique name per test so slug assertions don't depend on test order. */
  const unique = (base: string) => `${base} ${++n}`;

  before(async () => {
    d = await startTestDaemon({ label: 'collections' });
    owner = await createTenant(d, 'coll-owner');
    other = await createTenant(d, 'coll-other');
    req = http(d.url);
  });
  after(async () => d?.close());

  async function create(key: string, json: unknown) {
    const r = await req('POST', '/api/v1/collections/', { key, json });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }

  /** A key scoped to the given collection slugs, created through the API. */
  async function scopedKey(key: string, collections: string[]): Promise<string> {
    const r = await req('POST', '/api/v1/keys/', { key, json: { name: 'scoped', collections } });
    assert.equal(r.status, 201, r.text);
    return r.body.key;
  }

  async function addDocument(collectionId: string, chunks: number, opts: { deleted?: boolean } = {}) {
    await d.deps.sql`
      insert into documents (collection_id, title, source_type, status, chunks_count, deleted_at)
      values (${collectionId}, 'doc', 'text', ${chunks ? 'indexed' : 'pending'}, ${chunks}, ${opts.deleted ? new Date() : null})`;
  }

  it('creates a collection: 201 with exactly the spec fields', async () => {
    const r = await req('POST', '/api/v1/collections/', { key: owner.key, json: { name: 'Research Papers', description: 'PDFs' } });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), COLLECTION_FIELDS);
    assert.match(r.body.uuid, /^[0-9a-f-]{36}$/);
    assert.equal(r.body.name, 'Research Papers');
    assert.equal(r.body.slug, 'research-papers');
    assert.equal(r.body.description, 'PDFs');
    assert.equal(r.body.document_count, 0);
    assert.equal(r.body.total_chunks, 0);
    assert.equal(r.body.is_public, false);
    assert.equal(r.body.is_subscribed, false);
    assert.ok(!Number.isNaN(Date.parse(r.body.created_at)));
    const row = await d.deps.sql`select owner_id, organization_id from collections where id = ${r.body.uuid}`;
    assert.equal(row[0]!.owner_id, owner.userId);
    assert.equal(row[0]!.organization_id, owner.orgId);
  });

  it('description defaults to the empty string; is_public settable on create', async () => {
    const c = await create(owner.key, { name: unique('Public One'), is_public: true });
    assert.equal(c.description, '');
    assert.equal(c.is_public, true);
  });

  it('slug: lowercase, ASCII-folded, hyphenated', async () => {
    const cases: [string, string][] = [
      ['Crème Brûlée Recipes', 'creme-brulee-recipes'],
      ['  Hello,   World!!  ', 'hello-world'],
      ['Straße & Smørrebrød', 'strasse-smorrebrod'],
      ['ÆON  Łódź', 'aeon-lodz'],
      ['under_score.dots/and\\slashes', 'under-score-dots-and-slashes'],
      ['日本語', 'collection'],
    ];
    for (const [name, slug] of cases) {
      const c = await create(owner.key, { name });
      assert.equal(c.slug, slug, name);
      assert.equal(c.name, name.trim(), 'name is kept as given (trimmed)');
    }
    const long = await create(owner.key, { name: 'x'.repeat(59) + ' yz' });
    assert.ok(long.slug.length <= 60 && !long.slug.endsWith('-'), long.slug);
  });

  it('slug: -2, -3 on collision, globally unique across tenants', async () => {
    const a = await create(owner.key, { name: 'Team Notes' });
    const b = await create(owner.key, { name: 'team notes' });
    const c = await create(other.key, { name: 'TEAM   NOTES!' });
    assert.deepEqual([a.slug, b.slug, c.slug], ['team-notes', 'team-notes-2', 'team-notes-3']);
    // A literal "-2" name does not confuse the counter.
    const e = await create(owner.key, { name: 'Team Notes 2' });
    assert.equal(e.slug, 'team-notes-2-2');
  });

  it('slug: a deleted collection keeps its slug reserved', async () => {
    const a = await create(owner.key, { name: 'Ephemeral' });
    assert.equal((await req('DELETE', `/api/v1/collections/${a.uuid}/`, { key: owner.key })).status, 204);
    const b = await create(owner.key, { name: 'Ephemeral' });
    assert.equal(b.slug, 'ephemeral-2');
  });

  it('concurrent creates with the same name all succeed with distinct slugs', async () => {
    const name = unique('Race Name');
    const rs = await Promise.all(Array.from({ length: 6 }, () => req('POST', '/api/v1/collections/', { key: owner.key, json: { name } })));
    assert.deepEqual(
      rs.map((r) => r.status),
      [201, 201, 201, 201, 201, 201],
    );
    assert.equal(new Set(rs.map((r) => r.body.slug)).size, 6);
  });

  it('rename keeps the slug; PATCH sets description and is_public', async () => {
    const c = await create(owner.key, { name: 'Original Name' });
    const r = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: owner.key, json: { name: 'Brand New Name' } });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), COLLECTION_FIELDS);
    assert.equal(r.body.name, 'Brand New Name');
    assert.equal(r.body.slug, 'original-name');
    assert.equal(r.body.uuid, c.uuid);

    const p = await req('PATCH', `/api/v1/collections/${c.uuid}/`, {
      key: owner.key,
      json: { description: 'now described', is_public: true },
    });
    assert.equal(p.status, 200);
    assert.equal(p.body.name, 'Brand New Name', 'omitted fields are unchanged');
    assert.equal(p.body.description, 'now described');
    assert.equal(p.body.is_public, true);

    const q = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: owner.key, json: { is_public: false, description: '' } });
    assert.equal(q.body.is_public, false);
    assert.equal(q.body.description, '', 'description can be cleared');

    const empty = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: owner.key, json: {} });
    assert.equal(empty.status, 200);
    assert.equal(empty.body.name, 'Brand New Name');

    const g = await req('GET', `/api/v1/collections/${c.uuid}/`, { key: owner.key });
    assert.equal(g.status, 200);
    assert.deepEqual(g.body, q.body);
  });

  it('lists only the caller’s visible collections, oldest first', async () => {
    const mine = await create(other.key, { name: unique('Other Only') });
    const r = await req('GET', '/api/v1/collections/', { key: other.key });
    assert.equal(r.status, 200);
    assert.ok(r.body.some((c: { uuid: string }) => c.uuid === mine.uuid));
    const ownerList = await req('GET', '/api/v1/collections/', { key: owner.key });
    assert.ok(!ownerList.body.some((c: { uuid: string }) => c.uuid === mine.uuid), 'private collections of others never listed');
    const times = ownerList.body.map((c: { created_at: string }) => Date.parse(c.created_at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
    for (const c of ownerList.body) assert.deepEqual(Object.keys(c).sort(), COLLECTION_FIELDS);
  });

  it('a colleague in the same organization does not see a private collection', async () => {
    const colleague = await createMember(d, owner, 'colleague');
    const c = await create(owner.key, { name: unique('Owner Private') });
    assert.equal((await req('GET', `/api/v1/collections/${c.uuid}/`, { key: colleague.key })).body.code, 'COLLECTION_NOT_FOUND');
    const list = await req('GET', '/api/v1/collections/', { key: colleague.key });
    assert.deepEqual(list.body, []);
  });

  describe('validation', () => {
    const bad: [string, unknown, string][] = [
      ['missing name', {}, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['blank name', { name: '   ' }, 'name'],
      ['null name', { name: null }, 'name'],
      ['numeric name', { name: 42 }, 'name'],
      ['name over 200', { name: 'a'.repeat(201) }, 'name'],
      ['description over 5000', { name: 'ok', description: 'd'.repeat(5001) }, 'description'],
      ['non-string description', { name: 'ok', description: 5 }, 'description'],
      ['non-boolean is_public', { name: 'ok', is_public: 'yes' }, 'is_public'],
      ['unknown field', { name: 'ok', owner_id: 'x' }, 'owner_id'],
    ];
    for (const [label, json, field] of bad) {
      it(`POST ${label} → 400 VALIDATION_FAILED with fields.${field}`, async () => {
        const r = await req('POST', '/api/v1/collections/', { key: owner.key, json });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.body.code, 'VALIDATION_FAILED');
        assert.ok(Array.isArray(r.body.fields?.[field]) && r.body.fields[field].length > 0, JSON.stringify(r.body));
      });
    }

    it('boundaries: 200-character name and 5000-character description are accepted', async () => {
      const c = await create(owner.key, { name: 'n'.repeat(200), description: 'd'.repeat(5000) });
      assert.equal(c.name.length, 200);
      assert.equal(c.description.length, 5000);
    });

    it('PATCH validation: empty name, long name, long description, unknown field, wrong types', async () => {
      const c = await create(owner.key, { name: unique('Patch Target') });
      const cases: [unknown, string][] = [
        [{ name: '' }, 'name'],
        [{ name: null }, 'name'],
        [{ name: 'a'.repeat(201) }, 'name'],
        [{ description: 'd'.repeat(5001) }, 'description'],
        [{ slug: 'new-slug' }, 'slug'],
        [{ is_public: 1 }, 'is_public'],
      ];
      for (const [json, field] of cases) {
        const r = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: owner.key, json });
        assert.equal(r.status, 400, JSON.stringify(json));
        assert.equal(r.body.code, 'VALIDATION_FAILED');
        assert.ok(r.body.fields?.[field], JSON.stringify(r.body));
      }
      const g = await req('GET', `/api/v1/collections/${c.uuid}/`, { key: owner.key });
      assert.equal(g.body.slug, c.slug);
      assert.equal(g.body.name, c.name, 'a rejected PATCH changes nothing');
    });

    it('malformed JSON, non-object JSON, empty body → 400 VALIDATION_FAILED', async () => {
      const bodies = ['{"name": ', 'not json', '', '[]', '"a string"', 'null'];
      for (const body of bodies) {
        const r = await req('POST', '/api/v1/collections/', { key: owner.key, body, headers: { 'content-type': 'application/json' } });
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
        assert.equal(r.body.code, 'VALIDATION_FAILED');
      }
    });

    it('non-JSON content types → 400, never 500', async () => {
      const variants: { headers?: Record<string, string>; body?: BodyInit }[] = [
        { headers: { 'content-type': 'text/plain' }, body: '{"name":"x"}' },
        { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x' },
        { body: new URLSearchParams({ name: 'x' }) },
        {
          body: (() => {
            const f = new FormData();
            f.set('name', 'x');
            return f;
          })(),
        },
      ];
      for (const v of variants) {
        for (const [method, p] of [
          ['POST', '/api/v1/collections/'],
          ['PATCH', null],
        ] as const) {
          const path = p ?? `/api/v1/collections/${(await create(owner.key, { name: unique('CT') })).uuid}/`;
          const r = await req(method, path, { key: owner.key, ...v });
          assert.equal(r.status, 400, `${method} ${JSON.stringify(v.headers)}: ${r.text}`);
          assert.equal(r.body.code, 'VALIDATION_FAILED');
        }
      }
      // No body at all: POST lacks the required name; PATCH is an empty subset, a no-op.
      const none = await req('POST', '/api/v1/collections/', { key: owner.key });
      assert.equal(none.status, 400);
      assert.ok(none.body.fields?.name);
    });

    it('NUL bytes in text fields → 400, never 500', async () => {
      for (const json of [{ name: 'a\u0000b' }, { name: 'ok', description: 'x\u0000' }]) {
        const r = await req('POST', '/api/v1/collections/', { key: owner.key, json });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.body.code, 'VALIDATION_FAILED');
      }
    });
  });

  describe('ownership', () => {
    let pub: { uuid: string; slug: string; name: string };
    let priv: { uuid: string; slug: string };
    before(async () => {
      pub = await create(owner.key, { name: unique('Owner Public'), is_public: true });
      priv = await create(owner.key, { name: unique('Owner Private') });
      const s = await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: other.key });
      assert.equal(s.status, 200);
    });

    it('a subscriber sees it but PATCH/DELETE → 403 NOT_COLLECTION_OWNER', async () => {
      const g = await req('GET', `/api/v1/collections/${pub.uuid}/`, { key: other.key });
      assert.equal(g.status, 200);
      const p = await req('PATCH', `/api/v1/collections/${pub.uuid}/`, { key: other.key, json: { name: 'hijacked' } });
      assert.equal(p.status, 403);
      assert.equal(p.body.code, 'NOT_COLLECTION_OWNER');
      const del = await req('DELETE', `/api/v1/collections/${pub.uuid}/`, { key: other.key });
      assert.equal(del.status, 403);
      assert.equal(del.body.code, 'NOT_COLLECTION_OWNER');
      const still = await req('GET', `/api/v1/collections/${pub.uuid}/`, { key: owner.key });
      assert.equal(still.body.name, pub.name);
    });

    it('PATCH with an invalid body on a visible, not-owned collection is still refused (400 or 403, nothing changes)', async () => {
      const p = await req('PATCH', `/api/v1/collections/${pub.uuid}/`, { key: other.key, json: { name: '' } });
      assert.ok([400, 403].includes(p.status));
    });

    it('someone who cannot see it → 404 COLLECTION_NOT_FOUND on GET, PATCH, DELETE', async () => {
      const third = await createTenant(d, 'third');
      for (const target of [priv.uuid, pub.uuid]) {
        for (const [method, json] of [
          ['GET', undefined],
          ['PATCH', { name: 'x' }],
          ['DELETE', undefined],
        ] as const) {
          const r = await req(method, `/api/v1/collections/${target}/`, { key: third.key, ...(json ? { json } : {}) });
          assert.equal(r.status, 404, `${method} ${r.text}`);
          assert.equal(r.body.code, 'COLLECTION_NOT_FOUND');
        }
      }
    });

    it('unknown and malformed uuids → 404 COLLECTION_NOT_FOUND', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', priv.slug, '%00']) {
        for (const method of ['GET', 'PATCH', 'DELETE']) {
          const r = await req(method, `/api/v1/collections/${id}/`, {
            key: owner.key,
            ...(method === 'PATCH' ? { json: { name: 'x' } } : {}),
          });
          assert.equal(r.status, 404, `${method} ${id}: ${r.text}`);
          assert.equal(r.body.code, 'COLLECTION_NOT_FOUND');
        }
      }
    });

    it('scoped keys: 403 SCOPED_KEY_FORBIDDEN on create, and on PATCH/DELETE of a granted collection; 404 if not granted', async () => {
      const scoped = await scopedKey(owner.key, [priv.slug]);
      const c = await req('POST', '/api/v1/collections/', { key: scoped, json: { name: 'from scoped' } });
      assert.equal(c.status, 403);
      assert.equal(c.body.code, 'SCOPED_KEY_FORBIDDEN');
      for (const [method, json] of [
        ['PATCH', { name: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const r = await req(method, `/api/v1/collections/${priv.uuid}/`, { key: scoped, ...(json ? { json } : {}) });
        assert.equal(r.status, 403);
        assert.equal(r.body.code, 'SCOPED_KEY_FORBIDDEN');
        const hidden = await req(method, `/api/v1/collections/${pub.uuid}/`, { key: scoped, ...(json ? { json } : {}) });
        assert.equal(hidden.status, 404);
        assert.equal(hidden.body.code, 'COLLECTION_NOT_FOUND');
      }
      assert.equal((await req('GET', `/api/v1/collections/${priv.uuid}/`, { key: owner.key })).status, 200);
    });

    it('a scoped key lists and gets only its granted collections', async () => {
      const scoped = await scopedKey(owner.key, [priv.slug]);
      const list = await req('GET', '/api/v1/collections/', { key: scoped });
      assert.deepEqual(
        list.body.map((c: { uuid: string }) => c.uuid),
        [priv.uuid],
      );
      assert.equal((await req('GET', `/api/v1/collections/${priv.uuid}/`, { key: scoped })).status, 200);
      assert.equal((await req('GET', `/api/v1/collections/${pub.uuid}/`, { key: scoped })).body.code, 'COLLECTION_NOT_FOUND');
    });
  });

  describe('soft delete', () => {
    it('204 with no body; gone from list and get at once; documents soft-deleted too', async () => {
      const c = await create(owner.key, { name: unique('Doomed'), is_public: true });
      await addDocument(c.uuid, 3);
      await req('POST', `/api/v1/collections/${c.slug}/subscribe/`, { key: other.key });
      const scoped = await scopedKey(owner.key, [c.slug]);
      const r = await req('DELETE', `/api/v1/collections/${c.uuid}/`, { key: owner.key });
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      for (const key of [owner.key, other.key, scoped]) {
        const g = await req('GET', `/api/v1/collections/${c.uuid}/`, { key });
        assert.equal(g.status, 404);
        assert.equal(g.body.code, 'COLLECTION_NOT_FOUND');
        const list = await req('GET', '/api/v1/collections/', { key });
        assert.ok(!list.body.some((x: { uuid: string }) => x.uuid === c.uuid));
      }
      const again = await req('DELETE', `/api/v1/collections/${c.uuid}/`, { key: owner.key });
      assert.equal(again.status, 404);
      assert.equal(again.body.code, 'COLLECTION_NOT_FOUND');
      assert.equal((await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: owner.key, json: { name: 'zombie' } })).status, 404);
      const sub = await req('POST', `/api/v1/collections/${c.slug}/subscribe/`, { key: other.key });
      assert.equal(sub.body.code, 'COLLECTION_NOT_FOUND');
      const docs = await d.deps.sql`select deleted_at from documents where collection_id = ${c.uuid}`;
      assert.ok(docs.length === 1 && docs[0]!.deleted_at instanceof Date);
      const row = await d.deps.sql`select deleted_at from collections where id = ${c.uuid}`;
      assert.ok(row[0]!.deleted_at instanceof Date, 'soft delete keeps the row');
    });
  });

  describe('computed fields', () => {
    it('document_count and total_chunks count live documents only', async () => {
      const c = await create(owner.key, { name: unique('Counted') });
      await addDocument(c.uuid, 4);
      await addDocument(c.uuid, 6);
      await addDocument(c.uuid, 0);
      await addDocument(c.uuid, 100, { deleted: true });
      const g = await req('GET', `/api/v1/collections/${c.uuid}/`, { key: owner.key });
      assert.equal(g.body.document_count, 3);
      assert.equal(g.body.total_chunks, 10);
      const list = await req('GET', '/api/v1/collections/', { key: owner.key });
      const item = list.body.find((x: { uuid: string }) => x.uuid === c.uuid);
      assert.equal(item.document_count, 3);
      assert.equal(item.total_chunks, 10);
      const p = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: owner.key, json: { description: 'x' } });
      assert.equal(p.body.document_count, 3);
      assert.equal(p.body.total_chunks, 10);
    });

    it('is_subscribed is per caller: false for the owner, true for a subscriber', async () => {
      const c = await create(owner.key, { name: unique('Sub Flag'), is_public: true });
      await req('POST', `/api/v1/collections/${c.slug}/subscribe/`, { key: other.key });
      assert.equal((await req('GET', `/api/v1/collections/${c.uuid}/`, { key: owner.key })).body.is_subscribed, false);
      assert.equal((await req('GET', `/api/v1/collections/${c.uuid}/`, { key: other.key })).body.is_subscribed, true);
      const list = await req('GET', '/api/v1/collections/', { key: other.key });
      assert.equal(list.body.find((x: { uuid: string }) => x.uuid === c.uuid).is_subscribed, true);
      const ownerList = await req('GET', '/api/v1/collections/', { key: owner.key });
      assert.equal(ownerList.body.find((x: { uuid: string }) => x.uuid === c.uuid).is_subscribed, false);
    });
  });
});
