// A database outage in the middle of an MCP tool call: the tool answers isError with the code its
// REST equivalent answers, 500 SEARCH_UNAVAILABLE for search_documents (as POST /search/) and
// SERVICE_UNAVAILABLE for the other tools (as their GETs), and says to retry (every tool is
// read-only, so a retry is always safe). The database sits behind a TCP proxy that goes away at a
// chosen statement, after the key lookup succeeded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { startPgProxy, type PgProxy } from './helpers/pg-proxy.js';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

describe('MCP tools during a database outage', () => {
  let db: TestDatabase;
  let proxy: PgProxy;
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let client: Client;
  before(async () => {
    db = await createTestDatabase('mcp_outage');
    const u = new URL(db.url);
    proxy = await startPgProxy({ host: u.hostname, port: Number(u.port) });
    u.port = String(proxy.port);
    d = await startTestDaemon({ db, worker: true, env: { DATABASE_URL: u.toString(), DB_CONNECT_TIMEOUT_MS: '1000' } });
    t = await createTenant(d, 'mcpout');
    req = http(d.url);
    const col = await makeCollection(req, t.key, 'Handbook');
    const doc = await addText(req, t.key, col.uuid, 'Vacation policy', 'Employees get 25 days of paid vacation per year.');
    await waitSettled(req, t.key, [doc.uuid]);
    client = new Client({ name: 'docsift-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(d.url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${t.key}` } } }),
    );
  });
  after(async () => {
    proxy?.refuse(false);
    await client?.close();
    await d?.close();
    await proxy?.close();
    await db?.drop();
  });

  /** Takes the database away at the first statement matching `at`, calls the tool, then brings it back. */
  async function outageDuring(at: RegExp, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    proxy.armStatementCut(at);
    let r: ToolResult;
    try {
      r = (await client.callTool({ name, arguments: args })) as ToolResult;
    } finally {
      proxy.refuse(false);
    }
    for (let i = 0; ; i++) {
      const s = await req('GET', '/api/v1/collections/', { key: t.key });
      if (s.status === 200) break;
      assert.ok(i < 100, `the database did not come back: ${s.status} ${s.text}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    return r;
  }

  it('search_documents: SEARCH_UNAVAILABLE, the code of POST /search/, and says retry', async () => {
    const ok = (await client.callTool({ name: 'search_documents', arguments: { query: 'paid vacation' } })) as ToolResult;
    assert.ok(!ok.isError, ok.content[0]?.text);
    // The text channel's statement: collections were resolved and the search metered before it.
    const r = await outageDuring(/collection_text_stats_delta/, 'search_documents', { query: 'vacation days per year' });
    assert.equal(r.isError, true, JSON.stringify(r));
    assert.equal(r.structuredContent.code, 'SEARCH_UNAVAILABLE', r.content[0]?.text);
    assert.match(r.structuredContent.error, /retry/i);
    assert.match(r.content[0]!.text, /^SEARCH_UNAVAILABLE: .*retry/i);
  });

  it('list_collections: SERVICE_UNAVAILABLE, the code of GET /collections/, and says retry', async () => {
    const r = await outageDuring(/as is_subscribed/, 'list_collections', {});
    assert.equal(r.isError, true, JSON.stringify(r));
    assert.equal(r.structuredContent.code, 'SERVICE_UNAVAILABLE', r.content[0]?.text);
    assert.match(r.structuredContent.error, /retry/i);
  });
});
