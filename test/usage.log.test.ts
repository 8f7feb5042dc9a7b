// Request log: what is recorded (REST and MCP, searches with query and result count), batching off
// the request path, rollups agreeing with the raw log, retention, and no loss on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import postgres from 'postgres';
import { pruneUsageLog } from '../daemon/src/usage/rollup-usage.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase } from './helpers/pg.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function mcpCall(req: ReturnType<typeof http>, key: string, name: string, args: Record<string, unknown>) {
  return req('POST', '/mcp', {
    key,
    headers: { accept: 'application/json, text/event-stream' },
    json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
}

describe('request log', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let t: Tenant;
  let col: any;
  let doc: any;

  before(async () => {
    // A long flush interval: the test decides when the buffer is written.
    d = await startTestDaemon({ label: 'usagelog', worker: true, env: { USAGE_FLUSH_MS: '60000' } });
    req = http(d.url);
    t = await createTenant(d, 'log');
    col = await makeCollection(req, t.key, 'Log test');
    doc = await addText(req, t.key, col.uuid, 'Metering', 'Every request is metered and written in batches to the request log.');
    await waitSettled(req, t.key, [doc.uuid]);
    await d.deps.usageLog.flush();
  });
  after(async () => d?.close());

  const rowsOf = (keyId: string) => d.deps.sql<any[]>`select * from request_log where key_id = ${keyId} order by ts, id`;
  const keyIdOf = async (key: string) => (await req('GET', '/api/v1/keys/current/', { key })).body.uuid as string;

  it('records key, user, organization, route pattern, method, status and time; off the request path', async () => {
    const keyId = await keyIdOf(t.key);
    await d.deps.usageLog.flush();
    const before = (await rowsOf(keyId)).length;
    assert.equal((await req('GET', `/api/v1/documents/${doc.uuid}/`, { key: t.key })).status, 200);
    assert.equal((await req('GET', '/api/v1/documents/00000000-0000-0000-0000-000000000000/', { key: t.key })).status, 404);
    assert.equal((await req('GET', '/api/v1/no-such-endpoint/', { key: t.key })).status, 404);
    assert.equal((await rowsOf(keyId)).length, before, 'nothing written before the flush');
    assert.equal(d.deps.usageLog.pending, 3);
    await d.deps.usageLog.flush();
    const rows = (await rowsOf(keyId)).slice(before);
    assert.equal(rows.length, 3);
    assert.deepEqual(
      rows.map((r) => [r.method, r.endpoint, r.status]),
      [
        ['GET', '/api/v1/documents/{uuid}', 200],
        ['GET', '/api/v1/documents/{uuid}', 404],
        ['GET', '/api/v1/*', 404],
      ],
    );
    for (const r of rows) {
      assert.equal(r.user_id, t.userId);
      assert.equal(r.organization_id, t.orgId);
      assert.ok(r.duration_us > 0 && r.duration_us < 5_000_000);
      assert.equal(r.query, null);
      assert.equal(r.billable, false);
    }
  });

  it('unauthenticated requests and the schema are not recorded', async () => {
    await d.deps.usageLog.flush();
    const { n: before } = (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from request_log`)[0]!;
    await req('GET', '/api/v1/collections/');
    await req('GET', '/api/v1/collections/', { key: 'svc_' + 'y'.repeat(40) });
    await req('GET', '/api/v1/schema/');
    await req('GET', '/healthz');
    await d.deps.usageLog.flush();
    const { n } = (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from request_log`)[0]!;
    assert.equal(n, before);
  });

  it('searches record query text and result count, on REST and on MCP', async () => {
    const keyId = await keyIdOf(t.key);
    await d.deps.usageLog.flush();
    const before = (await rowsOf(keyId)).length;
    const rest = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'metered request log', mode: 'text' } });
    assert.equal(rest.status, 200);
    assert.ok(rest.body.count >= 1);
    const missing = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'nowhere', collection: 'no-such-collection' } });
    assert.equal(missing.status, 404);
    const mcp = await mcpCall(req, t.key, 'search_documents', { query: 'batches', limit: 2 });
    assert.equal(mcp.status, 200, mcp.text);
    const mcpCount = mcp.body.result.structuredContent.count;
    await mcpCall(req, t.key, 'list_collections', {});
    await d.deps.usageLog.flush();
    const rows = (await rowsOf(keyId)).slice(before);
    assert.deepEqual(
      rows.map((r) => [r.endpoint, r.status, r.query, r.result_count, r.billable]),
      [
        ['/api/v1/search', 200, 'metered request log', rest.body.count, true],
        ['/api/v1/search', 404, 'nowhere', null, false],
        ['/mcp', 200, 'batches', mcpCount, true],
        ['/mcp', 200, null, null, false],
      ],
    );
  });

  it('an MCP client session lists only its tool calls in recent requests; protocol calls are counted apart', async () => {
    const key = (await req('POST', '/api/v1/keys/', { key: t.key, json: { name: 'mcp-session' } })).body.key as string;
    const keyId = await keyIdOf(key);
    const client = new Client({ name: 'usage-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(d.url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    try {
      await client.listTools();
      await client.callTool({ name: 'search_documents', arguments: { query: 'request log' } });
      await client.callTool({ name: 'list_collections', arguments: {} });
    } finally {
      await client.close();
    }
    await d.deps.usageLog.flush();
    const rows = await rowsOf(keyId);
    const tools = rows.filter((r) => r.endpoint === '/mcp');
    const protocol = rows.filter((r) => r.endpoint === '/mcp (protocol)');
    assert.deepEqual(
      tools.map((r) => [r.method, r.query]),
      [
        ['POST', 'request log'],
        ['POST', null],
      ],
    );
    // initialize, notifications/initialized, tools/list (and the client's GET for a stream): counted, not listed.
    assert.ok(protocol.length >= 3, `protocol calls recorded: ${protocol.length}`);
    const usage = await req('GET', `/api/v1/keys/${keyId}/usage/`, { key: t.key });
    assert.equal(usage.status, 200, usage.text);
    assert.deepEqual(
      usage.body.recent.items.map((i: any) => [i.method, i.endpoint, i.query]),
      [
        ['POST', '/mcp', null],
        ['POST', '/mcp', 'request log'],
        ['GET', '/api/v1/keys/current', null],
      ],
    );
  });

  it('daily rollups equal the raw log, per key and day', async () => {
    await d.deps.usageLog.flush();
    const raw = await d.deps.sql<any[]>`
      select key_id, (ts at time zone 'UTC')::date::text as day, count(*)::int as requests, (count(*) filter (where status >= 400))::int as errors,
             sum(duration_us)::int8::text as dur, count(query)::int as searches, (count(*) filter (where billable))::int as billable
        from request_log group by 1, 2 order by 1, 2`;
    const roll = await d.deps.sql<any[]>`
      select key_id, day::text as day, requests, errors, total_duration_us::text as dur, searches, billable_searches as billable
        from usage_daily order by 1, 2`;
    assert.ok(raw.length > 0);
    assert.deepEqual(roll, raw);
  });

  it('a full batch is written without waiting for the timer', async () => {
    const d2 = await startTestDaemon({ label: 'usagebatch', db: d.db, env: { USAGE_FLUSH_MS: '60000', USAGE_FLUSH_ROWS: '5' } });
    try {
      const key = t.key;
      const keyId = await keyIdOf(key);
      const r2 = http(d2.url);
      const before = (await rowsOf(keyId)).length;
      for (let i = 0; i < 5; i++) await r2('GET', '/api/v1/collections/', { key });
      for (let i = 0; i < 50 && (await rowsOf(keyId)).length < before + 5; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal((await rowsOf(keyId)).length, before + 5);
    } finally {
      await d2.close();
    }
  });

  it('retention deletes old raw rows and keeps the rollups', async () => {
    const old = new Date(Date.now() - 100 * 86_400_000);
    await d.deps.sql`
      insert into request_log (ts, organization_id, user_id, key_id, method, endpoint, status, duration_us)
      select ${old}, ${t.orgId}, ${t.userId}, gen_random_uuid(), 'GET', '/old', 200, 1000 from generate_series(1, 25)`;
    await d.deps.sql`
      insert into usage_daily (key_id, day, organization_id, user_id, requests, errors, total_duration_us, searches, billable_searches)
      values (gen_random_uuid(), ${old.toISOString().slice(0, 10)}::date, ${t.orgId}, ${t.userId}, 25, 0, 25000, 0, 0)`;
    const deleted = await pruneUsageLog(d.deps.sql, 90, new Date());
    assert.equal(deleted, 25);
    const { n } = (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from request_log where endpoint = '/old'`)[0]!;
    assert.equal(n, 0);
    const { r } = (
      await d.deps.sql<{ r: number }[]>`select count(*)::int as r from usage_daily where day = ${old.toISOString().slice(0, 10)}::date`
    )[0]!;
    assert.equal(r, 1);
    assert.ok((await d.deps.sql`select 1 from request_log limit 1`).length, 'recent rows stay');
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM writes every buffered record before the process exits', { timeout: 45_000 }, async () => {
    const db = await createTestDatabase('usagesigterm');
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-sigterm-'));
    const sql = postgres(db.url, { max: 2, onnotice: () => {} });
    try {
      const { createUserWithKey } = await import('../daemon/src/accounts/create.js');
      const u = await createUserWithKey(sql as never, {
        email: `sigterm-${Date.now()}@example.test`,
        newOrganization: 'sigterm',
        now: new Date(),
      });
      const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', 'serve', '--api-only'], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: os.tmpdir(),
          DATABASE_URL: db.url,
          DATA_DIR: dataDir,
          PORT: '0',
          LOG_LEVEL: 'warn',
          USAGE_FLUSH_MS: '60000',
          RATE_LIMITS_ENABLED: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`daemon did not start: ${out}`)), 30_000);
        child.stdout!.setEncoding('utf8').on('data', (s: string) => {
          out += s;
          const m = /docsift is running at (\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s));
      });
      const req = http(url);
      let answered = 0;
      // A request that reaches the process after SIGTERM is refused before it is served (503, not
      // logged: it never had a caller); every request served has its row.
      const refused: unknown[] = [];
      const count = (r: { status: number; body: { code?: string } }) => {
        if (r.status === 503 && r.body.code === 'SERVICE_UNAVAILABLE') refused.push(r.body);
        else if (r.status) answered++;
      };
      // 60 finished requests, then 40 more in flight while SIGTERM arrives.
      for (let i = 0; i < 60; i++) count(await req('GET', '/api/v1/collections/', { key: u.key }));
      const inflight = Array.from({ length: 40 }, () =>
        req('GET', '/api/v1/collections/', { key: u.key }).then(
          (r) => count(r),
          () => 0,
        ),
      );
      await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGTERM');
      await Promise.all(inflight);
      assert.equal(await exited, 0, out);
      const { n } = (await sql<{ n: number }[]>`select count(*)::int as n from request_log where user_id = ${u.user.id}`)[0]!;
      assert.ok(answered >= 60);
      assert.equal(n, answered, 'one log row per answered request');
      const { r } = (
        await sql<{ r: number }[]>`select coalesce(sum(requests), 0)::int as r from usage_daily where user_id = ${u.user.id}`
      )[0]!;
      assert.equal(r, answered);
    } finally {
      await sql.end();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
