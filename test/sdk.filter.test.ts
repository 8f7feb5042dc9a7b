import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, NotFoundError, PermissionError, ValidationError, type DocsiftClient, type Filter } from '../sdk/src/node.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('SDK: metadata, update and typed filters', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let client: DocsiftClient;
  let other: DocsiftClient;
  const ids: Record<string, string> = {};
  before(async () => {
    d = await startTestDaemon({ label: 'sdkfilter', worker: true });
    a = await createTenant(d, 'sfa');
    b = await createTenant(d, 'sfb');
    client = createClient({ baseUrl: d.url, apiKey: a.key });
    other = createClient({ baseUrl: d.url, apiKey: b.key });
    const coll = await client.collections.create({ name: 'Contracts' });
    const f = await client.documents.upload(coll.uuid, new Blob(['Master services agreement with ACME.']), {
      filename: 'contracts/acme.txt',
      metadata: { year: 2024, dept: 'legal' },
    });
    ids.acme = f.uuid;
    ids.memo = (
      await client.documents.uploadText(coll.uuid, { content: 'Agreement memo for HR.', metadata: { year: 2023, dept: 'hr' } })
    ).uuid;
    await client.documents.waitForIndexed([ids.acme, ids.memo]);
  });
  after(async () => d?.close());

  it('uploads carry metadata; search and list take a typed Filter', async () => {
    const legal2024: Filter = { and: [{ year: { gte: 2024 } }, { dept: 'legal' }] };
    const s = await client.search({ query: 'agreement', filter: legal2024, limit: 10 });
    assert.deepEqual([...new Set(s.results.map((r) => r.document_id))], [ids.acme]);
    assert.deepEqual(s.results[0]!.metadata, { year: 2024, dept: 'legal' });
    const page = await client.documents.list({ filter: { original_filename: { prefix: 'contracts/' } }, limit: 10 });
    assert.deepEqual(
      page.data.map((x) => x.uuid),
      [ids.acme],
    );
  });

  it('update changes metadata in place; errors are typed', async () => {
    const u = await client.documents.update(ids.memo!, { metadata: { year: 2025, dept: 'legal' } });
    assert.deepEqual(u.metadata, { year: 2025, dept: 'legal' });
    const s = await client.search({ query: 'agreement', filter: { dept: 'legal' }, limit: 10 });
    assert.deepEqual([...new Set(s.results.map((r) => r.document_id))].sort(), [ids.acme, ids.memo].sort());
    await assert.rejects(
      client.search({ query: 'x', filter: { year: { gt: true } } as unknown as Filter }),
      (e: unknown) => e instanceof ValidationError && Object.keys(e.fields ?? {}).includes('filter.year.gt'),
    );
    await assert.rejects(other.documents.update(ids.memo!, { title: 'stolen' }), NotFoundError);
    const reader = await client.keys.create({ name: 'r', collections: ['contracts'] });
    const readOnly = createClient({ baseUrl: d.url, apiKey: reader.key });
    await assert.rejects(readOnly.documents.update(ids.memo!, { title: 'x' }), PermissionError);
  });
});
