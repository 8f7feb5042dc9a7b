// DATABASE_READ_URL against a real streaming replica: a private cluster, `pg_basebackup -R` of it and
// a second postmaster in hot standby (test/helpers/replica-pg.ts). Pausing WAL replay shows which
// server answered: lists, search, usage and MCP reads come from the replica (they trail while replay
// is paused), reads that must see their own writes come from the primary.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { captureLogs, WARN, type LogCapture } from './helpers/log-capture.js';
import type { TestDatabase } from './helpers/pg.js';
import { startPrivatePostgres, type PrivatePostgres } from './helpers/private-pg.js';
import { startReplica, type StreamingReplica } from './helpers/replica-pg.js';

const REPLICA_DOWN = 'read replica unreachable: reads go to the primary until it is back';

describe('read replica (DATABASE_READ_URL)', () => {
  let primary: PrivatePostgres;
  let replica: StreamingReplica;
  let ollama: FakeOllama;
  let logs: LogCapture;
  let d: TestDaemon;
  /** Same database, no replica: what the primary says. */
  let plain: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let direct: ReturnType<typeof http>;
  let collection: { uuid: string; slug: string };
  let first: { uuid: string };

  before(async () => {
    [primary, ollama] = await Promise.all([startPrivatePostgres('replica'), startFakeOllama()]);
    replica = await startReplica(primary);
    const db: TestDatabase = { name: 'docsift', url: primary.url, drop: async () => {} };
    const embed = { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url };
    logs = captureLogs();
    d = await startTestDaemon({
      db,
      worker: true,
      logTo: logs.stream,
      env: { ...embed, DATABASE_READ_URL: replica.url, LOG_LEVEL: 'info', DB_CONNECT_TIMEOUT_MS: '1000' },
    });
    plain = await startTestDaemon({ db, env: embed });
    t = await createTenant(d, 'replica');
    req = http(d.url);
    direct = http(plain.url);
    collection = await makeCollection(req, t.key, 'Replicated');
    first = await addText(req, t.key, collection.uuid, 'Aardvarks', 'The aardvark digs burrows at night.');
    await waitSettled(req, t.key, [first.uuid]);
    await replica.caughtUp();
  });
  after(async () => {
    await plain?.close();
    await d?.close();
    await replica?.destroy();
    await Promise.all([primary?.destroy(), ollama?.close()]);
  });

  const titles = async (via = req) =>
    ((await via('GET', `/api/v1/documents/?collection=${collection.slug}&limit=100`, { key: t.key })).body as { title: string }[])
      .map((x) => x.title)
      .sort();
  const hits = async (query: string, via = req) => {
    const r = await via('POST', '/api/v1/search/', { key: t.key, json: { query, collection: collection.slug } });
    assert.equal(r.status, 200, r.text);
    return (r.body.results as { document_id: string }[]).map((x) => x.document_id);
  };
  const docCount = async (via = req) =>
    ((await via('GET', '/api/v1/collections/', { key: t.key })).body as { uuid: string; document_count: number }[]).find(
      (c) => c.uuid === collection.uuid,
    )?.document_count;

  const totalRequests = async (via: ReturnType<typeof http>) => {
    const r = await via('GET', '/api/v1/keys/usage/?days=7', { key: t.key });
    assert.equal(r.status, 200, r.text);
    return r.body.total_requests as number;
  };

  it('while replay is paused, lists, search, usage and MCP reads trail the primary; detail reads its own write', async () => {
    await replica.pauseReplay();
    let late: { uuid: string };
    try {
      late = await addText(req, t.key, collection.uuid, 'Bonobos', 'Bonobos share food in the forest canopy.');
      // Document detail right after the upload: from the primary, so it is found at once (and indexed).
      const [settled] = await waitSettled(req, t.key, [late.uuid]);
      assert.equal(settled.status, 'indexed');

      assert.deepEqual(await titles(), ['Aardvarks'], 'the list comes from the replica');
      assert.deepEqual(await titles(direct), ['Aardvarks', 'Bonobos'], 'the primary has both');
      assert.deepEqual(await hits('bonobos food'), [], 'search comes from the replica');
      assert.deepEqual(await hits('bonobos food', direct), [late.uuid]);
      assert.equal(await docCount(), 1, 'the collection list comes from the replica');
      assert.equal(await docCount(direct), 2);

      const mcp = new Client({ name: 'replica-test', version: '1.0.0' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.key}` } } }),
      );
      try {
        const r = (await mcp.callTool({ name: 'search_documents', arguments: { query: 'bonobos food' } })) as {
          content: { text: string }[];
        };
        assert.match(r.content[0]!.text, /No results/, 'MCP search reads the replica');
        const info = (await mcp.callTool({ name: 'get_document_info', arguments: { document_id: late.uuid } })) as {
          isError?: boolean;
          content: { text: string }[];
        };
        assert.ok(!info.isError, info.content[0]?.text);
        assert.match(info.content[0]!.text, /Bonobos/, 'document detail reads the primary');
      } finally {
        await mcp.close();
      }

      // Usage reports: frozen on the replica while the primary's request log grows.
      const frozen = await totalRequests(req);
      const deadline = Date.now() + 20_000;
      while ((await totalRequests(direct)) <= frozen) {
        assert.ok(Date.now() < deadline, 'the request log was never written');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await totalRequests(req), frozen, 'the usage report comes from the replica');

      // A collection created after the pause: unknown to the replica, confirmed on the primary, not 404.
      const fresh = await makeCollection(req, t.key, 'Created while paused');
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'anything', collection: fresh.slug } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.count, 0);
      const tagged = await req('GET', `/api/v1/tags/none/documents/?collection=${fresh.slug}`, { key: t.key });
      assert.equal(tagged.status, 200, tagged.text);

      // Keys are checked on the primary: a key created a moment ago works at once.
      const key = await req('POST', '/api/v1/keys/', { key: t.key, json: { name: 'fresh' } });
      assert.equal(key.status, 201, key.text);
      assert.equal((await req('GET', '/api/v1/collections/', { key: key.body.key })).status, 200);
    } finally {
      await replica.resumeReplay();
    }
    await replica.caughtUp();
    assert.deepEqual(await titles(), await titles(direct), 'once replay catches up, the lists match');
    assert.deepEqual(await hits('bonobos food'), await hits('bonobos food', direct), 'and so does search');
    assert.equal(await docCount(), await docCount(direct));
  });

  it('replica down: reads fall back to the primary without a client error, with one warning; back up: reads return to it', async () => {
    const warningsBefore = logs.lines.filter((l) => l.msg === REPLICA_DOWN).length;
    await replica.stop();
    try {
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(await titles(), ['Aardvarks', 'Bonobos']);
        assert.equal((await hits('aardvark burrows')).length, 1);
        assert.equal(await docCount(), 2);
      }
      const warnings = logs.lines.filter((l) => l.msg === REPLICA_DOWN);
      assert.equal(warnings.length - warningsBefore, 1, 'one warning for the whole outage');
      assert.equal(warnings.at(-1)?.level, WARN);
      assert.equal((await fetch(`${d.url}/readyz`)).status, 200, 'the process stays ready: the primary answers');
    } finally {
      await replica.start();
    }
    await logs.waitFor((l) => l.msg === 'read replica reachable again: reads go to it', 20_000, 'the replica to be back in use');
    await replica.pauseReplay();
    try {
      await addText(req, t.key, collection.uuid, 'Caracals', 'Caracals leap to catch birds.');
      assert.deepEqual(await titles(), ['Aardvarks', 'Bonobos'], 'lists read the replica again');
    } finally {
      await replica.resumeReplay();
    }
    await replica.caughtUp();
    assert.deepEqual(await titles(), ['Aardvarks', 'Bonobos', 'Caracals']);
  });

  it('primary down: the API answers 503 SERVICE_UNAVAILABLE (not 500) although the replica is up, and recovers', async () => {
    await primary.stop();
    try {
      const r = await req('GET', `/api/v1/documents/?collection=${collection.slug}&limit=10`, { key: t.key });
      assert.equal(r.status, 503, r.text);
      assert.equal(r.body.code, 'SERVICE_UNAVAILABLE');
    } finally {
      await primary.start();
    }
    await logs.waitFor((l) => l.msg === 'database reachable again', 20_000, 'the primary to be back');
    assert.equal((await req('GET', `/api/v1/documents/?collection=${collection.slug}&limit=10`, { key: t.key })).status, 200);
  });
});
