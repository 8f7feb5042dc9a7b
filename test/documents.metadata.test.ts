import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

function assertError(r: { status: number; body: any; text: string }, status: number, code: string, field?: string) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.body.code, code, r.text);
  assert.equal(typeof r.body.error, 'string');
  if (field) assert.ok(r.body.fields && field in r.body.fields, `fields should name ${field}: ${r.text}`);
}

describe('document metadata: upload, JSON, replace, PATCH', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let owner: Tenant;
  let other: Tenant;
  let coll: any;
  let readKey: string;

  const form = (fields: Record<string, string>, file = 'Plain text body about contracts.', name = 'a.txt') => {
    const f = new FormData();
    f.append('file', new Blob([file], { type: 'text/plain' }), name);
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    return f;
  };
  const upload = (fields: Record<string, string>, key = owner.key) =>
    req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key, body: form(fields) });
  const detail = async (id: string) => (await req('GET', `/api/v1/documents/${id}/`, { key: owner.key })).body;
  const patch = (id: string, json: unknown, key = owner.key) => req('PATCH', `/api/v1/documents/${id}/`, { key, json });

  before(async () => {
    d = await startTestDaemon({ label: 'metadata', worker: true });
    req = http(d.url);
    owner = await createTenant(d, 'mo');
    other = await createTenant(d, 'mx');
    coll = await makeCollection(req, owner.key, 'Contracts');
    const k = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'reader', collections: [coll.slug] } });
    assert.equal(k.status, 201, k.text);
    readKey = k.body.key;
  });
  after(async () => d?.close());

  it('upload carries a `metadata` form field into the upload shape, list, detail and search', async () => {
    const meta = { year: 2024, dept: 'legal', signed: true, parties: ['acme', 'globex'] };
    const r = await upload({ metadata: JSON.stringify(meta), title: 'ACME agreement' });
    assert.equal(r.status, 201, r.text);
    // The upload shape plus `metadata` (additive): the client sees what was stored without a second request.
    assert.deepEqual(r.body.metadata, meta);
    await waitSettled(req, owner.key, [r.body.uuid]);
    assert.deepEqual((await req('GET', `/api/v1/documents/${r.body.uuid}/`, { key: owner.key })).body.metadata, meta);
    const list = await req('GET', `/api/v1/documents/?collection=${coll.slug}`, { key: owner.key });
    assert.deepEqual(list.body.find((x: any) => x.uuid === r.body.uuid).metadata, meta);
    const s = await req('POST', '/api/v1/search/', { key: owner.key, json: { query: 'contracts', mode: 'text' } });
    assert.deepEqual(s.body.results.find((x: any) => x.document_id === r.body.uuid).metadata, meta);
    // Without the field: an empty object, never absent.
    const plain = await upload({});
    assert.deepEqual((await detail(plain.body.uuid)).metadata, {});
  });

  it('JSON documents and batches take metadata; replace replaces it only when sent', async () => {
    const j = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
      key: owner.key,
      json: { source_type: 'text', content: 'Inline text', metadata: { path: 'notes/a.md', n: 1.5 } },
    });
    assert.equal(j.status, 201, j.text);
    assert.deepEqual(j.body.metadata, { path: 'notes/a.md', n: 1.5 });
    assert.deepEqual((await detail(j.body.uuid)).metadata, { path: 'notes/a.md', n: 1.5 });
    const f = new FormData();
    for (const n of ['x.txt', 'y.txt']) f.append('files', new Blob([`file ${n}`], { type: 'text/plain' }), n);
    f.append('metadata', '{"batch":"b1"}');
    const b = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: owner.key, body: f });
    assert.equal(b.status, 201, b.text);
    for (const u of b.body.uploaded) {
      assert.deepEqual(u.metadata, { batch: 'b1' });
      assert.deepEqual((await detail(u.uuid)).metadata, { batch: 'b1' });
    }
    const doc = (await upload({ metadata: '{"v":1}' })).body;
    await waitSettled(req, owner.key, [doc.uuid]);
    const kept = await req('POST', `/api/v1/documents/${doc.uuid}/replace/`, { key: owner.key, body: form({}) });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.metadata, { v: 1 });
    assert.deepEqual((await detail(doc.uuid)).metadata, { v: 1 });
    const changed = await req('POST', `/api/v1/documents/${doc.uuid}/replace/`, { key: owner.key, body: form({ metadata: '{"v":2}' }) });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.metadata, { v: 2 });
    assert.deepEqual((await detail(doc.uuid)).metadata, { v: 2 });
    assertError(
      await req('POST', `/api/v1/documents/${doc.uuid}/replace/`, { key: owner.key, body: form({ metadata: '{"v":{"x":1}}' }) }),
      400,
      'VALIDATION_FAILED',
      'metadata.v',
    );
  });

  it('refuses metadata beyond its limits with VALIDATION_FAILED naming the key', async () => {
    const cases: [string, string][] = [
      ['not json', 'metadata'],
      ['[1,2]', 'metadata'],
      ['{"a":{"b":1}}', 'metadata.a'],
      ['{"a":null}', 'metadata.a'],
      ['{"a":[1]}', 'metadata.a[0]'],
      ['{"bad key":1}', 'metadata.bad key'],
      [JSON.stringify({ ['k'.repeat(65)]: 1 }), `metadata.${'k'.repeat(65)}`],
      [JSON.stringify(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]))), 'metadata'],
      [JSON.stringify({ s: 'x'.repeat(1001) }), 'metadata.s'],
      [JSON.stringify({ a: Array.from({ length: 101 }, () => 'x') }), 'metadata.a'],
      [JSON.stringify(Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, 'x'.repeat(1000)]))), 'metadata'],
      ['{"a":"nul\\u0000"}', 'metadata.a'],
    ];
    for (const [raw, field] of cases) assertError(await upload({ metadata: raw }), 400, 'VALIDATION_FAILED', field);
    assertError(
      await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
        key: owner.key,
        json: { source_type: 'text', content: 'x', metadata: { deep: { x: 1 } } },
      }),
      400,
      'VALIDATION_FAILED',
      'metadata.deep',
    );
  });

  it('PATCH changes title, tags and metadata without reprocessing', async () => {
    const doc = await addText(req, owner.key, coll.uuid, 'Old title', 'Contract clauses about termination.', 'draft');
    const [before] = await waitSettled(req, owner.key, [doc.uuid]);
    assert.equal(before.status, 'indexed');
    const r = await patch(doc.uuid, { title: 'New title', tags: ['final', 'legal'], metadata: { year: 2025 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.title, 'New title');
    assert.deepEqual(r.body.tags, ['final', 'legal']);
    assert.deepEqual(r.body.metadata, { year: 2025 });
    const after = (await req('GET', `/api/v1/documents/${doc.uuid}/`, { key: owner.key })).body;
    assert.equal(after.status, 'indexed');
    assert.deepEqual(
      after.chunks.map((c: any) => c.id),
      before.chunks.map((c: any) => c.id),
    );
    // Only the fields sent change; search sees the new values at once.
    const m = await patch(doc.uuid, { metadata: { year: 2026 } });
    assert.equal(m.body.title, 'New title');
    assert.deepEqual(m.body.tags, ['final', 'legal']);
    const s = await req('POST', '/api/v1/search/', {
      key: owner.key,
      json: { query: 'termination', mode: 'text', filter: { year: 2026 } },
    });
    assert.deepEqual(
      s.body.results.map((x: any) => [x.document_id, x.title, x.metadata]),
      [[doc.uuid, 'New title', { year: 2026 }]],
    );
    const [row] = await d.deps.sql<{ generation: number }[]>`select generation from documents where id = ${doc.uuid}`;
    assert.equal(row!.generation, 1, 'not restarted: same generation, no processing queued');
  });

  it('PATCH errors: 400 bad fields, 403 read-only grant or subscriber, 404 other tenant', async () => {
    const doc = await addText(req, owner.key, coll.uuid, 'T', 'Body text.');
    assertError(await patch(doc.uuid, { title: '' }), 400, 'VALIDATION_FAILED', 'title');
    assertError(await patch(doc.uuid, { metadata: { 'a b': 1 } }), 400, 'VALIDATION_FAILED', 'metadata.a b');
    assertError(await patch(doc.uuid, { status: 'indexed' }), 400, 'VALIDATION_FAILED');
    assertError(await patch(doc.uuid, { metadata: { x: 1 } }, readKey), 403, 'WRITE_ACCESS_REQUIRED');
    assertError(await patch(doc.uuid, { metadata: { x: 1 } }, other.key), 404, 'DOCUMENT_NOT_FOUND');
    assertError(await patch('not-a-uuid', { title: 'x' }), 404, 'DOCUMENT_NOT_FOUND');
    const pub = await makeCollection(req, owner.key, 'Public', { is_public: true });
    assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: other.key })).status, 200);
    const shared = await addText(req, owner.key, pub.uuid, 'Shared', 'Shared text.');
    assertError(await patch(shared.uuid, { title: 'mine now' }, other.key), 403, 'WRITE_ACCESS_REQUIRED');
    const unchanged = await req('GET', `/api/v1/documents/${doc.uuid}/`, { key: owner.key });
    assert.deepEqual(unchanged.body.metadata, {});
  });
});
