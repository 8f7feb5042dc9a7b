import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

describe('MCP search_documents: filter and collections', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let client: Client;
  const ids: Record<string, string> = {};
  before(async () => {
    d = await startTestDaemon({ label: 'mcpfilter', worker: true });
    const req = http(d.url);
    a = await createTenant(d, 'mfa');
    b = await createTenant(d, 'mfb');
    const hr = await makeCollection(req, a.key, 'HR');
    const legal = await makeCollection(req, a.key, 'Legal');
    const colB = await makeCollection(req, b.key, 'B');
    const add = async (key: string, coll: any, name: string, content: string, metadata: object) => {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
        key,
        json: { source_type: 'text', title: name, content, metadata },
      });
      assert.equal(r.status, 201, r.text);
      ids[name] = r.body.uuid;
    };
    await add(a.key, hr, 'old', 'Vacation policy: 20 days per year.', { year: 2020 });
    await add(a.key, hr, 'new', 'Vacation policy: 25 days per year.', { year: 2025 });
    await add(a.key, legal, 'contract', 'Vacation clause in the employment contract.', { year: 2025, dept: 'legal' });
    await add(b.key, colB, 'secret', 'Vacation policy of tenant B: 40 days.', { year: 2025 });
    await waitSettled(req, a.key, [ids.old!, ids.new!, ids.contract!]);
    await waitSettled(req, b.key, [ids.secret!]);
    client = new Client({ name: 'docsift-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(d.url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${a.key}` } } }),
    );
  });
  after(async () => {
    await client?.close();
    await d?.close();
  });

  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'search_documents', arguments: { query: 'vacation policy', limit: 10, ...args } })) as ToolResult;
  const docs = (r: ToolResult) => [...new Set(r.structuredContent.results.map((x: any) => x.document_id))].sort();

  it('documents the filter grammar in the tool schema', async () => {
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === 'search_documents')!.inputSchema.properties as any;
    assert.match(props.filter.description, /gte/);
    assert.match(props.filter.description, /document/);
    assert.equal(props.collections.type, 'array');
  });

  it('filters by metadata, by one document, and searches several collections', async () => {
    assert.deepEqual(docs(await call({ filter: { year: { gte: 2025 } } })), [ids.new, ids.contract].sort());
    assert.deepEqual(docs(await call({ filter: { document: ids.old } })), [ids.old]);
    assert.deepEqual(docs(await call({ collections: ['hr'], filter: { not: { year: 2020 } } })), [ids.new]);
    const r = await call({ filter: { dept: 'legal' } });
    assert.deepEqual(r.structuredContent.results[0].metadata, { year: 2025, dept: 'legal' });
  });

  it('a bad filter is a tool error naming the clause', async () => {
    const r = await call({ filter: { and: [{ year: 1 }, { year: { gt: true } }] } });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.code, 'VALIDATION_FAILED');
    assert.match(r.content[0]!.text, /filter\.and\[1\]\.year\.gt/);
  });

  it('a bad filter carries the code and the `fields` map the HTTP API answers', async () => {
    const req = http(d.url);
    const bad: Record<string, unknown>[] = [
      { year: { gtx: 1 } }, // unknown operator
      { 'bad key!': 1 }, // not a metadata key
      { and: [{ year: 1 }, { year: { gt: true } }] }, // wrong value type
      { document: { in: [] } }, // empty list
      { or: [{ created_at: { gte: 'yesterday' } }] }, // not a timestamp
      { created_at: { gte: '0000-01-01T00:00:00Z' } }, // before year 1
      { created_at: { lt: '9999-12-31T23:00:00-05:00' } }, // after 9999 in UTC
      { dept: '\ud800' }, // a lone surrogate
    ];
    for (const filter of bad) {
      const api = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'vacation policy', filter } });
      assert.equal(api.status, 400, api.text);
      const r = await call({ filter });
      const what = JSON.stringify(filter);
      assert.equal(r.isError, true, what);
      assert.equal(r.structuredContent.code, api.body.code, what);
      assert.deepEqual(r.structuredContent.fields, api.body.fields, what);
      // The text carries the same map, for clients that read only the text.
      assert.ok(r.content[0]!.text.includes(JSON.stringify(api.body.fields)), `${what}: ${r.content[0]!.text}`);
      assert.ok(r.content[0]!.text.startsWith('VALIDATION_FAILED: '), what);
    }
  });

  it('cross-tenant: a filter naming another tenant’s document or collection finds nothing of it', async () => {
    assert.deepEqual(docs(await call({ filter: { document: ids.secret } })), []);
    assert.deepEqual(docs(await call({ filter: { collection: 'b' } })), []);
    const r = await call({ collections: ['b'] });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.code, 'COLLECTION_NOT_FOUND');
  });
});
