import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// Every MCP tool's input is the REST request's schema: the same fields, caps and descriptions, and
// an argument REST would refuse is refused with the same code and `fields`, through real MCP over HTTP.

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'docsift-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

describe('MCP tool inputs: the REST request schemas', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let client: Client;
  let colA: any;
  let colB: any;
  let doc: any;
  before(async () => {
    d = await startTestDaemon({ label: 'mcpinputs', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'mia');
    b = await createTenant(d, 'mib');
    colA = await makeCollection(req, a.key, 'Policies');
    colB = await makeCollection(req, b.key, 'Secret B');
    doc = await addText(req, a.key, colA.uuid, 'Leave', 'Employees get 25 days of leave per year.', 'hr');
    const docB = await addText(req, b.key, colB.uuid, 'Leave B', 'Tenant B gives 40 days of leave per year.', 'hr');
    await waitSettled(req, a.key, [doc.uuid]);
    await waitSettled(req, b.key, [docB.uuid]);
    client = await connect(d.url, a.key);
  });
  after(async () => {
    await client?.close();
    await d?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
  const rest = async (body: Record<string, unknown>) => req('POST', '/api/v1/search/', { key: a.key, json: body });

  it('search_documents lists REST’s search request: its fields, caps and descriptions, and no other field', async () => {
    const schema = (await req('GET', '/api/v1/schema')).body.components.schemas.SearchRequest;
    const { tools } = await client.listTools();
    const input = tools.find((t) => t.name === 'search_documents')!.inputSchema as any;
    // collection_id is REST's alias of `collection` for older clients; a new tool has no older clients.
    const restFields = Object.keys(schema.properties).filter((k) => k !== 'collection_id');
    assert.deepEqual(Object.keys(input.properties).sort(), restFields.sort());
    assert.deepEqual(input.required, schema.required);
    assert.equal(input.additionalProperties, false);
    for (const k of restFields) {
      if (k === 'filter') continue; // REST refers to the Filter component; its grammar is the field's description
      assert.equal(input.properties[k].description, schema.properties[k].description, k);
    }
    assert.equal(input.properties.collections.maxItems, 100);
    assert.equal(input.properties.query.maxLength, 1000);
    assert.equal(input.properties.limit.maximum, 50);
    assert.match(input.properties.min_score.description, /relevance floor/i);
    assert.equal(input.properties.filter.type, 'object');
    assert.match(input.properties.filter.description, /gte/);
    assert.ok(!JSON.stringify(input).includes('$ref'), 'no reference a client would have to resolve');
  });

  it('every tool refuses an argument it does not know, as REST does', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) assert.equal((t.inputSchema as any).additionalProperties, false, t.name);
    const api = await rest({ query: 'leave', where: 'year >= 2024' });
    assert.equal(api.status, 400, api.text);
    const r = await call('search_documents', { query: 'leave', where: 'year >= 2024' });
    assert.equal(r.isError, true, r.content[0]?.text);
    assert.equal(r.structuredContent.code, 'VALIDATION_FAILED');
    assert.deepEqual(r.structuredContent.fields, api.body.fields);
    assert.deepEqual(r.structuredContent.fields, { where: ['Unknown field.'] });
    for (const [name, args] of [
      ['list_collections', { where: 'x' }],
      ['get_document_info', { document_id: doc.uuid, page: 2 }],
      ['search_by_tag', { tag: 'hr', filter: { year: 2024 } }],
    ] as const) {
      const unknown = Object.keys(args).find((k) => !['document_id', 'tag'].includes(k))!;
      const res = await call(name, args);
      assert.equal(res.isError, true, `${name}: ${res.content[0]?.text}`);
      assert.equal(res.structuredContent.code, 'VALIDATION_FAILED', name);
      assert.deepEqual(res.structuredContent.fields, { [unknown]: ['Unknown field.'] }, name);
    }
  });

  it('a bad argument answers the code and `fields` REST answers for the same body', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `c${i}`);
    const bad: Record<string, unknown>[] = [
      { query: 'leave', collections: many },
      { query: 'leave', limit: 0 },
      { query: 'leave', limit: 51 },
      { query: 'leave', min_score: 2 },
      { query: '   ' },
      { query: 'leave', mode: 'fuzzy' },
      { query: 'leave', tags: [''] },
    ];
    for (const body of bad) {
      const what = JSON.stringify(body).slice(0, 80);
      const api = await rest(body);
      assert.equal(api.status, 400, `${what}: ${api.text}`);
      const r = await call('search_documents', body);
      assert.equal(r.isError, true, what);
      assert.equal(r.structuredContent.code, api.body.code, what);
      assert.deepEqual(r.structuredContent.fields, api.body.fields, what);
      assert.ok(r.content[0]!.text.startsWith('VALIDATION_FAILED: '), what);
    }
    const tag = await call('search_by_tag', { tag: 'hr', limit: 0 });
    assert.equal(tag.structuredContent.code, 'VALIDATION_FAILED');
    assert.deepEqual(Object.keys(tag.structuredContent.fields), ['limit']);
    const missing = await call('get_document_info', {});
    assert.deepEqual(Object.keys(missing.structuredContent.fields), ['document_id']);
  });

  it('the fields REST has and the hand-written tool lacked work through MCP', async () => {
    const r = await call('search_documents', { query: 'leave', explain: true, max_chunks_per_document: 1, fusion: 'rrf' });
    assert.ok(!r.isError, r.content[0]?.text);
    assert.equal(r.structuredContent.fusion.method, 'rrf');
    assert.ok(r.structuredContent.explain, 'explain was passed on');
    const trimmed = await call('search_documents', { query: '  leave  ' });
    assert.equal(trimmed.structuredContent.query, 'leave');
  });

  it('cross-tenant: 100 collections, one of them another tenant’s, is COLLECTION_NOT_FOUND and leaks nothing', async () => {
    const slugs = [...Array.from({ length: 99 }, () => colA.slug), colB.slug];
    const api = await rest({ query: 'leave', collections: slugs });
    const r = await call('search_documents', { query: 'leave', collections: slugs });
    assert.equal(api.status, 404);
    assert.equal(r.structuredContent.code, 'COLLECTION_NOT_FOUND');
    assert.ok(!JSON.stringify(r).includes('40 days'));
    const tagged = await call('search_by_tag', { tag: 'hr', collection: colB.slug });
    assert.equal(tagged.structuredContent.code, 'COLLECTION_NOT_FOUND');
  });
});
