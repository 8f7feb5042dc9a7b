import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'docsift-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

describe('MCP endpoint', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let colA: any;
  let docA: any;
  let docB: any;
  let client: Client;
  before(async () => {
    d = await startTestDaemon({ label: 'mcp', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'ma');
    b = await createTenant(d, 'mb');
    colA = await makeCollection(req, a.key, 'Handbook', { description: 'Company handbook' });
    const colB = await makeCollection(req, b.key, 'Private B');
    docA = await addText(req, a.key, colA.uuid, 'Vacation policy', 'Employees get 25 days of paid vacation per year.', 'hr, policy');
    docB = await addText(req, b.key, colB.uuid, 'B secrets', 'Tenant B vacation rules are confidential: 40 days.', 'hr');
    await waitSettled(req, a.key, [docA.uuid]);
    await waitSettled(req, b.key, [docB.uuid]);
    client = await connect(d.url, a.key);
  });
  after(async () => {
    await client?.close();
    await d?.close();
  });

  it('lists four read-only tools with descriptions and input schemas', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['get_document_info', 'list_collections', 'search_by_tag', 'search_documents']);
    for (const t of tools) {
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
      assert.ok((t.description ?? '').length > 60, t.name);
      assert.equal(t.inputSchema.type, 'object');
    }
    const search = tools.find((t) => t.name === 'search_documents')!;
    assert.deepEqual(search.inputSchema.required, ['query']);
    assert.ok(search.inputSchema.properties?.collection && search.inputSchema.properties?.limit);
  });

  it('search_documents returns text plus structured results', async () => {
    const r = (await client.callTool({ name: 'search_documents', arguments: { query: 'how many vacation days', limit: 3 } })) as ToolResult;
    assert.ok(!r.isError);
    assert.match(r.content[0]!.text, /Vacation policy/);
    assert.equal(r.structuredContent.results[0].document_id, docA.uuid);
    assert.ok(!JSON.stringify(r).includes('40 days'), 'no cross-tenant leak');
    const scoped = (await client.callTool({
      name: 'search_documents',
      arguments: { query: 'vacation', collection: colA.slug },
    })) as ToolResult;
    assert.equal(scoped.structuredContent.count, 1);
  });

  it('list_collections, get_document_info and search_by_tag', async () => {
    const cols = (await client.callTool({ name: 'list_collections', arguments: {} })) as ToolResult;
    assert.deepEqual(
      cols.structuredContent.collections.map((c: any) => c.slug),
      [colA.slug],
    );
    assert.match(cols.content[0]!.text, /Company handbook/);
    assert.equal(cols.structuredContent.collections[0].document_count, 1);
    const info = (await client.callTool({ name: 'get_document_info', arguments: { document_id: docA.uuid } })) as ToolResult;
    assert.equal(info.structuredContent.uuid, docA.uuid);
    assert.equal(info.structuredContent.chunks.length, 1);
    assert.match(info.content[0]!.text, /25 days/);
    const tagged = (await client.callTool({ name: 'search_by_tag', arguments: { tag: 'HR' } })) as ToolResult;
    assert.deepEqual(
      tagged.structuredContent.documents.map((x: any) => x.uuid),
      [docA.uuid],
    );
    const partial = (await client.callTool({ name: 'search_by_tag', arguments: { tag: 'h' } })) as ToolResult;
    assert.equal(partial.structuredContent.count, 0, 'exact tag match only');
  });

  it('tool errors carry the API error codes and never reveal other tenants', async () => {
    const other = (await client.callTool({ name: 'get_document_info', arguments: { document_id: docB.uuid } })) as ToolResult;
    assert.equal(other.isError, true);
    assert.equal(other.structuredContent.code, 'DOCUMENT_NOT_FOUND');
    const bad = (await client.callTool({ name: 'get_document_info', arguments: { document_id: 'not-a-uuid' } })) as ToolResult;
    assert.equal(bad.structuredContent.code, 'DOCUMENT_NOT_FOUND');
    const col = (await client.callTool({ name: 'search_documents', arguments: { query: 'x', collection: 'private-b' } })) as ToolResult;
    assert.equal(col.isError, true);
    assert.equal(col.structuredContent.code, 'COLLECTION_NOT_FOUND');
    const tag = (await client.callTool({ name: 'search_by_tag', arguments: { tag: 'hr', collection: 'private-b' } })) as ToolResult;
    assert.equal(tag.structuredContent.code, 'COLLECTION_NOT_FOUND');
  });

  it('scoped keys see only their grants', async () => {
    const other = await makeCollection(req, a.key, 'Other');
    const scoped = (await req('POST', '/api/v1/keys/', { key: a.key, json: { name: 'mcp', collections: [other.slug] } })).body.key;
    const c = await connect(d.url, scoped);
    try {
      const cols = (await c.callTool({ name: 'list_collections', arguments: {} })) as ToolResult;
      assert.deepEqual(
        cols.structuredContent.collections.map((x: any) => x.slug),
        [other.slug],
      );
      const s = (await c.callTool({ name: 'search_documents', arguments: { query: 'vacation' } })) as ToolResult;
      assert.equal(s.structuredContent.count, 0);
      const info = (await c.callTool({ name: 'get_document_info', arguments: { document_id: docA.uuid } })) as ToolResult;
      assert.equal(info.structuredContent.code, 'DOCUMENT_NOT_FOUND');
    } finally {
      await c.close();
    }
  });

  it('401 envelope without a valid key, before any MCP session', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    const none = await req('POST', '/mcp', { json: init, headers });
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'AUTHENTICATION_REQUIRED');
    assert.equal(none.headers.get('mcp-session-id'), null);
    const wrong = await req('POST', '/mcp', { json: init, headers, key: 'svc_' + 'x'.repeat(40) });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'INVALID_API_KEY');
    await assert.rejects(connect(d.url, 'svc_' + 'y'.repeat(40)));
  });

  it('works with the MCP Inspector CLI as an independent client', async () => {
    const cli = path.join(root, 'node_modules/@modelcontextprotocol/inspector/cli/build/index.js');
    const common = [cli, `${d.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${a.key}`];
    const list = await run(process.execPath, [...common, '--method', 'tools/list'], { timeout: 30_000 });
    assert.deepEqual(
      JSON.parse(list.stdout)
        .tools.map((t: any) => t.name)
        .sort(),
      ['get_document_info', 'list_collections', 'search_by_tag', 'search_documents'],
    );
    const call = await run(
      process.execPath,
      [...common, '--method', 'tools/call', '--tool-name', 'search_documents', '--tool-arg', 'query=paid vacation'],
      { timeout: 30_000 },
    );
    const out = JSON.parse(call.stdout);
    assert.equal(out.structuredContent.results[0].document_id, docA.uuid);
  });

  it('reports the package version and instructions; every tool declares the outputSchema its structuredContent matches', async () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'daemon/package.json'), 'utf8')) as { version: string };
    assert.deepEqual(client.getServerVersion(), { name: 'docsift', version: pkg.version });
    assert.match(client.getInstructions() ?? '', /search_documents[\s\S]*get_document_info/);
    const { tools } = await client.listTools();
    for (const t of tools) {
      assert.equal(t.outputSchema?.type, 'object', `${t.name} declares an outputSchema`);
      assert.ok(Object.keys(t.outputSchema?.properties ?? {}).length > 0, t.name);
    }
    // The SDK client validates structuredContent against the listed outputSchema and throws on a mismatch.
    const calls = [
      { name: 'search_documents', arguments: { query: 'vacation days' } },
      { name: 'list_collections', arguments: {} },
      { name: 'get_document_info', arguments: { document_id: docA.uuid } },
      { name: 'search_by_tag', arguments: { tag: 'hr' } },
    ];
    for (const call of calls) {
      const r = (await client.callTool(call)) as ToolResult;
      assert.ok(!r.isError, `${call.name}: ${r.content[0]?.text}`);
      const schema = tools.find((t) => t.name === call.name)!.outputSchema!;
      // On success every field but the failure's error, code and fields is present (explain and facets are asked for only).
      for (const k of Object.keys(schema.properties ?? {}).filter((k) => !['error', 'code', 'fields', 'explain', 'facets'].includes(k)))
        assert.ok(k in r.structuredContent, `${call.name} returns ${k}`);
    }
  });

  it('search_by_tag honours limit; search_documents filters by tags and runs the mode asked', async () => {
    const col = await makeCollection(req, a.key, 'Tagged many');
    const docs = [];
    for (let i = 0; i < 4; i++)
      docs.push(await addText(req, a.key, col.uuid, `Memo ${i}`, `Quarterly memo number ${i} about parking.`, 'memo'));
    const hr = await addText(req, a.key, col.uuid, 'Parking rules', 'Parking spaces are assigned by HR.', 'rules');
    await waitSettled(
      req,
      a.key,
      [...docs, hr].map((x) => x.uuid),
    );
    const two = (await client.callTool({ name: 'search_by_tag', arguments: { tag: 'memo', limit: 2 } })) as ToolResult;
    assert.equal(two.structuredContent.count, 2);
    assert.equal(two.structuredContent.documents.length, 2);
    const all = (await client.callTool({ name: 'search_by_tag', arguments: { tag: 'memo' } })) as ToolResult;
    assert.equal(all.structuredContent.count, 4);
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === 'search_documents')!.inputSchema.properties ?? {};
    assert.ok(props.tags && props.mode, 'search_documents takes tags and mode');
    const tagged = (await client.callTool({
      name: 'search_documents',
      arguments: { query: 'parking', tags: ['rules'], limit: 10 },
    })) as ToolResult;
    assert.ok(!tagged.isError, tagged.content[0]?.text);
    assert.deepEqual([...new Set(tagged.structuredContent.results.map((x: any) => x.document_id))], [hr.uuid]);
    const text = (await client.callTool({ name: 'search_documents', arguments: { query: 'parking', mode: 'text' } })) as ToolResult;
    assert.equal(text.structuredContent.mode, 'text');
    const bad = (await client.callTool({ name: 'search_by_tag', arguments: { tag: 'memo', limit: 0 } })) as ToolResult;
    assert.equal(bad.isError, true, 'limit below 1 is refused');
    // Tenant B sees none of tenant A's tagged documents.
    const cb = await connect(d.url, b.key);
    try {
      const other = (await cb.callTool({ name: 'search_by_tag', arguments: { tag: 'memo', limit: 50 } })) as ToolResult;
      assert.equal(other.structuredContent.count, 0);
    } finally {
      await cb.close();
    }
  });
});
