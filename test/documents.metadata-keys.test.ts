// metadataKeys: the keys and frequent values of document metadata in the caller's scope, which the
// web UI's search page offers as filters. Another tenant's keys and values never appear, nor those
// of collections outside a scoped key's grants or outside the collections asked for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metadataKeys } from '../daemon/src/documents/metadata-keys.js';
import type { Caller } from '../daemon/src/types.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection } from './helpers/docs.js';

describe('metadataKeys', () => {
  let d: TestDaemon;
  let owner: Tenant;
  let other: Tenant;
  let contracts: { uuid: string; slug: string };
  let memos: { uuid: string; slug: string };
  const caller = (t: Tenant, extra: Partial<Caller> = {}): Caller => ({
    keyId: '00000000-0000-0000-0000-000000000000',
    keyPrefix: '',
    userId: t.userId,
    orgId: t.orgId,
    isFullAccess: true,
    isAdmin: false,
    tier: 'free',
    via: 'key',
    ...extra,
  });

  before(async () => {
    d = await startTestDaemon({ label: 'metadata_keys' });
    const req = http(d.url);
    [owner, other] = await Promise.all([createTenant(d, 'mk-owner'), createTenant(d, 'mk-other')]);
    contracts = await makeCollection(req, owner.key, 'Contracts');
    memos = await makeCollection(req, owner.key, 'Memos');
    const theirs = await makeCollection(req, other.key, 'Theirs', { is_public: true });
    const add = async (key: string, col: string, metadata: object) => {
      const r = await req('POST', `/api/v1/collections/${col}/documents/`, { key, json: { source_type: 'text', content: 'x', metadata } });
      assert.equal(r.status, 201, r.text);
    };
    await add(owner.key, contracts.uuid, { dept: 'legal', year: 2024, parties: ['acme', 'globex'] });
    await add(owner.key, contracts.uuid, { dept: 'legal', year: 2023, signed: true });
    await add(owner.key, memos.uuid, { dept: 'finance', author: 'Ann' });
    await add(owner.key, memos.uuid, {});
    await add(other.key, theirs.uuid, { dept: 'secret-dept', classified: 'yes' });
  });
  after(() => d?.close());

  it('lists the keys most used first, with their types and most frequent values (array elements one by one)', async () => {
    const keys = await metadataKeys(d.deps, caller(owner));
    assert.deepEqual(
      keys.map((k) => [k.key, k.documents]),
      [
        ['dept', 3],
        ['year', 2],
        ['author', 1],
        ['parties', 1],
        ['signed', 1],
      ],
    );
    const byKey = Object.fromEntries(keys.map((k) => [k.key, k]));
    assert.deepEqual(byKey.dept!.values, ['legal', 'finance']);
    assert.deepEqual(byKey.dept!.types, ['string']);
    assert.deepEqual(byKey.year!.types, ['number']);
    assert.deepEqual(byKey.year!.values.sort(), ['2023', '2024']);
    assert.deepEqual(byKey.parties!.types, ['array']);
    assert.deepEqual(byKey.parties!.values, ['acme', 'globex']);
    assert.deepEqual(byKey.signed!.types, ['boolean']);
    assert.deepEqual(byKey.signed!.values, ['true']);
  });

  it('narrows to the collections named; a slug the caller cannot see adds nothing', async () => {
    const keys = await metadataKeys(d.deps, caller(owner), { collections: [memos.slug, 'theirs'] });
    assert.deepEqual(keys.map((k) => k.key).sort(), ['author', 'dept']);
    assert.deepEqual(keys.find((k) => k.key === 'dept')!.values, ['finance']);
  });

  it('cross-tenant: another tenant sees only its own; a scoped key only its grants', async () => {
    const theirs = await metadataKeys(d.deps, caller(other));
    assert.deepEqual(theirs.map((k) => k.key).sort(), ['classified', 'dept']);
    assert.deepEqual(theirs.find((k) => k.key === 'dept')!.values, ['secret-dept']);
    // The owner does not subscribe to the other tenant's public collection: nothing of it shows.
    const mine = await metadataKeys(d.deps, caller(owner));
    assert.ok(!mine.some((k) => k.key === 'classified' || k.values.includes('secret-dept')));
    const r = await http(d.url)('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'memo reader', collections: [memos.slug] } });
    assert.equal(r.status, 201, r.text);
    const scoped = await metadataKeys(d.deps, caller(owner, { keyId: r.body.uuid, isFullAccess: false }));
    assert.deepEqual(scoped.map((k) => k.key).sort(), ['author', 'dept']);
  });
});
