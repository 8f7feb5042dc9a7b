// GET /api/v1/documents/facets: facet counts over the documents the list selects (same tag,
// collection, status and filter), capped and refused as documented, tenants kept apart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addDoc, DOCS } from './helpers/facet-docs.js';

describe('document list facets', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;

  const facets = (query: string, key = a.key) => req('GET', `/api/v1/documents/facets?${query}`, { key });

  before(async () => {
    d = await startTestDaemon({ label: 'list-facets', worker: true });
    req = http(d.url);
    [a, b] = await Promise.all([createTenant(d, 'lf-a'), createTenant(d, 'lf-b')]);
    const main = await makeCollection(req, a.key, 'main');
    const ids = [];
    for (const doc of DOCS) ids.push(await addDoc(req, a.key, main.uuid, doc));
    const theirs = await makeCollection(req, b.key, 'main');
    const bId = await addDoc(req, b.key, theirs.uuid, { ...DOCS[3]!, metadata: { dept: 'secret' } });
    await waitSettled(req, a.key, ids);
    await waitSettled(req, b.key, [bId]);
  });
  after(async () => d?.close());

  it('counts over every listed document, and within the list’s filter and tag', async () => {
    const r = await facets('facets=metadata.dept,tags');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.facets['metadata.dept'], [
      { value: 'legal', count: 2 },
      { value: 'finance', count: 1 },
      { value: 'hr', count: 1 },
    ]);
    assert.equal(r.body.documents, 4);
    assert.equal(r.body.truncated, false);
    const filtered = await facets(`facets=metadata.dept&filter=${encodeURIComponent('{"year":{"gte":2024}}')}&tag=contr`);
    assert.deepEqual(filtered.body.facets, { 'metadata.dept': [{ value: 'legal', count: 1 }] });
    assert.equal(filtered.body.documents, 1);
  });

  it('never counts another tenant’s documents', async () => {
    const theirs = await facets('facets=metadata.dept', b.key);
    assert.deepEqual(theirs.body.facets, { 'metadata.dept': [{ value: 'secret', count: 1 }] });
    const noKey = await req('GET', '/api/v1/documents/facets?facets=tags');
    assert.equal(noKey.status, 401);
  });

  it('refuses a missing, unknown or bad field and a bad filter, naming it', async () => {
    const missing = await facets('');
    assert.equal(missing.status, 400, missing.text);
    assert.ok(missing.body.fields.facets);
    const unknown = await facets('facets=tags,author');
    assert.equal(unknown.status, 400);
    assert.deepEqual(Object.keys(unknown.body.fields), ['facets[1]']);
    const many = await facets(`facets=${Array.from({ length: 11 }, (_, i) => `metadata.k${i}`).join(',')}`);
    assert.equal(many.status, 400);
    assert.ok(many.body.fields.facets);
    const badFilter = await facets('facets=tags&filter=nope');
    assert.equal(badFilter.status, 400);
    assert.equal(badFilter.body.code, 'VALIDATION_FAILED');
  });
});
