// A search or list statement (a streamed list's batch included) that runs longer than
// STATEMENT_TIMEOUT_MS is cancelled: that request answers 503 SERVICE_UNAVAILABLE, the database is
// never marked unreachable, and every other request (health checks, the next search) is served.
import type { Tx } from '../daemon/src/db/client.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import postgres from 'postgres';
import { StatementTimeoutError } from '../daemon/src/db/statement-timeout.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { captureLogs, WARN } from './helpers/log-capture.js';
import { connectMcp, type ToolResult } from './helpers/mcp-client.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('statement timeout: a search or list statement past STATEMENT_TIMEOUT_MS fails that request alone', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let a: Tenant;
  let client: Client;
  let collectionId: string;
  const logs = captureLogs();

  before(async () => {
    d = await startTestDaemon({
      label: 'stmttimeout',
      worker: true,
      env: { STATEMENT_TIMEOUT_MS: '400', LOG_LEVEL: 'warn' },
      logTo: logs.stream,
    });
    req = http(d.url);
    a = await createTenant(d, 'sto');
    const coll = await makeCollection(req, a.key, 'Slow');
    collectionId = coll.uuid;
    const ids: string[] = [];
    for (const content of ['Quarterly ledger of the harbour office.', 'Ledger entries for the harbour pilots.']) {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
        key: a.key,
        json: { source_type: 'text', title: 'Ledger', content, metadata: { year: 2025 } },
      });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.uuid);
    }
    await waitSettled(req, a.key, ids);
    client = await connectMcp(d.url, a.key);
  });
  after(async () => {
    await client?.close();
    await d?.close();
  });

  const search = (mode: string, filter?: unknown) =>
    req('POST', '/api/v1/search/', { key: a.key, json: { query: 'harbour ledger', mode, limit: 5, ...(filter ? { filter } : {}) } });
  const list = () => req('GET', `/api/v1/documents/?limit=5&filter=${encodeURIComponent(JSON.stringify({ year: 2025 }))}`, { key: a.key });
  // Without limit or cursor the list streams every match (docs/service-spec.md §4): each batch is one statement.
  const stream = () => req('GET', `/api/v1/documents/?filter=${encodeURIComponent(JSON.stringify({ year: 2025 }))}`, { key: a.key });

  /** Holds `tables` locked (access exclusive) while `during` runs: statements reading them wait until cancelled. */
  async function whileLocked(tables: string, during: () => Promise<void>) {
    const locker = postgres(d.config.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const held = await locker.reserve();
    await held`begin`;
    await held.unsafe(`lock table ${tables} in access exclusive mode`);
    try {
      await during();
    } finally {
      await held`rollback`;
      held.release();
      await locker.end();
    }
  }

  it('logs one warning per cancelled list statement, naming the organization and the statement', { timeout: 60_000 }, async () => {
    const from = logs.lines.length;
    await whileLocked('documents', async () => {
      assert.equal((await list()).status, 503);
      assert.equal((await stream()).status, 503);
    });
    const warns = logs.lines.slice(from).filter((l) => l.level === WARN && /^list statement cancelled/.test(l.msg));
    assert.deepEqual(
      warns.map((l) => [l.org, l.statement]),
      [
        [a.orgId, 'list_page'],
        [a.orgId, 'list_stream_batch'],
      ],
    );
  });

  it('bounds the background sample a hybrid search judges against', { timeout: 60_000 }, async () => {
    // A dimension no search has sampled yet: the sample is taken now, from the locked chunks.
    const run = <T>(fn: (sql: Tx) => Promise<T>): Promise<T> => d.deps.reads.run(fn);
    await whileLocked('chunks', async () => {
      await assert.rejects(d.deps.backgrounds.get(run, [collectionId], 7), StatementTimeoutError);
    });
    const bg = await d.deps.backgrounds.get(run, [collectionId], 7);
    assert.equal(bg.sample.length, 0, 'no chunk has 7 dimensions');
  });

  it('answers 503 while the tables are locked, never marks the database down, and serves again at once', { timeout: 60_000 }, async () => {
    // Another session holds the tables every search and list statement reads: those statements wait
    // on the lock until the timeout cancels them.
    const locker = postgres(d.config.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const held = await locker.reserve();
    await held`begin`;
    await held`lock table chunks, documents in access exclusive mode`;
    try {
      for (const r of [
        await search('text'),
        await search('vector'),
        await search('hybrid', { year: 2025 }),
        await list(),
        await stream(),
      ]) {
        assert.equal(r.status, 503, r.text);
        assert.equal(r.body.code, 'SERVICE_UNAVAILABLE');
        assert.match(r.body.error, /STATEMENT_TIMEOUT_MS/);
      }
      const m = (await client.callTool({ name: 'search_documents', arguments: { query: 'harbour ledger' } })) as ToolResult;
      assert.equal(m.isError, true);
      assert.equal(m.structuredContent.code, 'SERVICE_UNAVAILABLE');
      assert.equal(d.deps.availability.isDown, false, 'a slow statement is no outage');
      assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
    } finally {
      await held`rollback`;
      held.release();
      await locker.end();
    }
    assert.equal(d.deps.availability.isDown, false);
    for (const r of [await search('text'), await search('hybrid', { year: 2025 }), await list(), await stream()])
      assert.equal(r.status, 200, r.text);
    assert.equal((await stream()).body.length, 2);
    assert.equal((await search('text')).body.count, 2);
  });
});
