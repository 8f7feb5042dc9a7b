// Facet counts on search (daemon/src/search/facets.ts): value counts of tags, collection and
// metadata keys over the documents of the ranked candidates, within the query, filter, tags and
// collections; the caps and unknown fields refused naming the field; tenants kept apart; MCP alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FACET_MAX_FIELDS } from '../daemon/src/search/facets.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { addDoc, DOCS } from './helpers/facet-docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('search facets', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  const ids: string[] = [];
  let main: any;
  let theirs: any;
  let side: any;

  const search = async (json: Record<string, unknown>, key = a.key) =>
    req('POST', '/api/v1/search/', { key, json: { mode: 'text', ...json } });

  before(async () => {
    d = await startTestDaemon({ label: 'facets', worker: true });
    req = http(d.url);
    [a, b] = await Promise.all([createTenant(d, 'fa-a'), createTenant(d, 'fa-b')]);
    main = await makeCollection(req, a.key, 'main');
    side = await makeCollection(req, a.key, 'side');
    for (const doc of DOCS) ids.push(await addDoc(req, a.key, main.uuid, doc));
    ids.push(await addDoc(req, a.key, side.uuid, { ...DOCS[0]!, title: 'S1', metadata: { dept: 'legal' } }));
    theirs = await makeCollection(req, b.key, 'main');
    const bId = await addDoc(req, b.key, theirs.uuid, { ...DOCS[0]!, title: 'B1', metadata: { dept: 'legal' } });
    await waitSettled(req, a.key, ids);
    await waitSettled(req, b.key, [bId]);
  });
  after(async () => d?.close());

  it('counts each value over the documents matching the query, most frequent first', async () => {
    const r = await search({
      query: 'termination',
      limit: 1,
      facets: ['tags', 'metadata.dept', 'metadata.year', 'metadata.kinds', 'metadata.urgent', 'collection'],
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.count, 1, 'limit caps results, not the documents counted');
    const f = r.body.facets;
    assert.deepEqual(f['metadata.dept'], [
      { value: 'legal', count: 3 },
      { value: 'finance', count: 1 },
    ]);
    assert.deepEqual(
      f.tags,
      [
        { value: 'contracts', count: 3 },
        { value: 'finance', count: 1 },
        { value: 'legal', count: 2 },
      ].sort((x, y) => y.count - x.count || x.value.localeCompare(y.value)),
    );
    assert.deepEqual(f['metadata.year'], [
      { value: 2024, count: 2 },
      { value: 2023, count: 1 },
    ]);
    assert.deepEqual(f['metadata.kinds'], [
      { value: 'msa', count: 2 },
      { value: 'nda', count: 1 },
    ]);
    assert.deepEqual(f['metadata.urgent'], [{ value: true, count: 1 }]);
    assert.deepEqual(f.collection, [
      { value: main.slug, count: 3 },
      { value: side.slug, count: 1 },
    ]);
  });

  it('counts within the filter, tags and collections, and answers no facets key without the field', async () => {
    const filtered = await search({ query: 'termination', filter: { year: { gte: 2024 } }, facets: ['metadata.dept'] });
    assert.deepEqual(filtered.body.facets['metadata.dept'], [
      { value: 'finance', count: 1 },
      { value: 'legal', count: 1 },
    ]);
    const tagged = await search({ query: 'termination', tags: ['finance'], collection: 'main', facets: ['tags'] });
    assert.deepEqual(tagged.body.facets.tags, [{ value: 'finance', count: 1 }]);
    const none = await search({ query: 'zebra', facets: ['tags'] });
    assert.deepEqual(none.body.facets, { tags: [] });
    const plain = await search({ query: 'termination' });
    assert.equal(plain.body.facets, undefined);
  });

  it('never counts another tenant’s documents', async () => {
    const r = await search({ query: 'termination', facets: ['metadata.dept', 'collection'] }, b.key);
    assert.deepEqual(r.body.facets, { 'metadata.dept': [{ value: 'legal', count: 1 }], collection: [{ value: theirs.slug, count: 1 }] });
  });

  it('refuses unknown fields and too many, naming them', async () => {
    const bad = await search({ query: 'termination', facets: ['tags', 'title', 'metadata.bad key'] });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.code, 'VALIDATION_FAILED');
    assert.deepEqual(Object.keys(bad.body.fields).sort(), ['facets[1]', 'facets[2]']);
    const many = await search({ query: 'x', facets: Array.from({ length: FACET_MAX_FIELDS + 1 }, (_, i) => `metadata.k${i}`) });
    assert.equal(many.status, 400);
    assert.match(many.body.fields.facets[0], new RegExp(`At most ${FACET_MAX_FIELDS}`));
    const notArray = await search({ query: 'x', facets: 'tags' });
    assert.equal(notArray.status, 400);
    assert.ok(notArray.body.fields.facets);
  });

  it('takes facets through MCP search_documents, refused alike', async () => {
    const mcp = new Client({ name: 'docsift-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${a.key}` } } }),
    );
    try {
      const tool = (await mcp.listTools()).tools.find((t) => t.name === 'search_documents')!;
      assert.ok((tool.inputSchema as any).properties.facets);
      assert.ok((tool.outputSchema as any).properties.facets);
      const r: any = await mcp.callTool({
        name: 'search_documents',
        arguments: { query: 'termination', mode: 'text', facets: ['metadata.dept'] },
      });
      assert.ok(!r.isError, JSON.stringify(r));
      assert.deepEqual(r.structuredContent.facets['metadata.dept'][0], { value: 'legal', count: 3 });
      const bad: any = await mcp.callTool({ name: 'search_documents', arguments: { query: 'termination', facets: ['nope'] } });
      assert.ok(bad.isError);
      assert.ok(bad.structuredContent.fields['facets[0]']);
    } finally {
      await mcp.close();
    }
  });
});
