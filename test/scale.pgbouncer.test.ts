// The API through a real pgbouncer (Debian package) in transaction pooling mode, with only 2 server
// connections for every client: DATABASE_POOL_URL for request queries; migrations and the job worker
// keep DATABASE_URL, a direct connection (LISTEN/NOTIFY, advisory locks held across statements).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, resolvedConfig } from '../daemon/src/config.js';
import { createSql, withSearchSettings } from '../daemon/src/db/client.js';
import { createLogger } from '../daemon/src/logger.js';
import { startDaemon } from '../daemon/src/server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { captureLogs, type LogCapture } from './helpers/log-capture.js';
import { adminUrl, createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { findPgbouncer, startPgbouncer, type Pgbouncer } from './helpers/pgbouncer.js';

describe('pgbouncer in transaction pooling mode (DATABASE_POOL_URL)', () => {
  let bouncer: Pgbouncer;
  let ollama: FakeOllama;
  let db: TestDatabase;
  let logs: LogCapture;
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;

  before(async () => {
    [bouncer, ollama, db] = await Promise.all([startPgbouncer(adminUrl(), { poolSize: 2 }), startFakeOllama(), createTestDatabase('pgb')]);
    logs = captureLogs();
    d = await startTestDaemon({
      db,
      worker: true,
      logTo: logs.stream,
      env: { DATABASE_POOL_URL: bouncer.url(db.url), EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, LOG_LEVEL: 'info' },
    });
    t = await createTenant(d, 'pgb');
    req = http(d.url);
  });
  after(async () => {
    await d?.close();
    await db?.drop();
    await Promise.all([bouncer?.destroy(), ollama?.close()]);
  });

  it('the harness finds pgbouncer, and fails with the install command when it is missing', () => {
    assert.match(findPgbouncer(), /\/pgbouncer$/);
    assert.throws(() => findPgbouncer([]), /pgbouncer is not installed.*apt-get install -y pgbouncer/);
  });

  it('a connection with settings in its startup packet is refused by pgbouncer: why the pool URL is a setting of its own', async () => {
    const sql = createSql(bouncer.url(db.url), { max: 1 });
    try {
      await assert.rejects(sql`select 1`, /unsupported startup parameter/);
    } finally {
      await sql.end();
    }
  });

  it('the API works through it: collections, uploads, indexing, search in every mode, under concurrency', async (ctx) => {
    // A failure here says what pgbouncer saw (login retries, wait timeouts) besides the assertion.
    let finished = false;
    ctx.after(() => {
      if (!finished) process.stderr.write(`[pgbouncer log]\n${bouncer.log.slice(-30).join('\n')}\n`);
    });
    const before = await bouncer.transactions(db.name);
    const col = await makeCollection(req, t.key, 'Pooled');
    const docs = await Promise.all(
      ['Quokkas smile on Rottnest island.', 'Wombats dig wide burrows.', 'Numbats eat termites.'].map((text, i) =>
        addText(req, t.key, col.uuid, `Marsupial ${i}`, text),
      ),
    );
    const settled = await waitSettled(
      req,
      t.key,
      docs.map((x) => x.uuid),
    );
    assert.deepEqual(
      settled.map((x) => x.status),
      ['indexed', 'indexed', 'indexed'],
    );
    for (const mode of ['text', 'vector', 'hybrid']) {
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'wombats dig burrows', mode, collection: col.slug } });
      assert.equal(r.status, 200, `${mode}: ${r.text}`);
      assert.equal(r.body.results[0]?.document_id, docs[1]!.uuid, mode);
    }
    // 40 requests at once over 2 server connections: unnamed statements only, nothing session-bound.
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0
          ? req('POST', `/api/v1/collections/${col.uuid}/documents/`, {
              key: t.key,
              json: { source_type: 'text', title: `Extra ${i}`, content: `Bilbies ${i} live in deserts.` },
            })
          : i % 4 === 1
            ? req('GET', `/api/v1/documents/?collection=${col.slug}&limit=5`, { key: t.key })
            : req('POST', '/api/v1/search/', { key: t.key, json: { query: 'quokkas', mode: i % 2 ? 'vector' : 'hybrid' } }),
      ),
    );
    assert.deepEqual(
      many.filter((r) => r.status >= 300).map((r) => r.text),
      [],
    );
    assert.ok((await bouncer.transactions(db.name)) - before > 50, 'the requests went through pgbouncer');
    finished = true;
  });

  it('search settings apply per transaction behind the pooler, and never leak to other clients', async () => {
    const inSearch = await withSearchSettings(d.deps.sql, (tx) => tx<{ v: string }[]>`select current_setting('hnsw.ef_search', true) as v`);
    assert.equal(inSearch[0]?.v, String(d.config.HNSW_EF_SEARCH));
    const iterative = await withSearchSettings(
      d.deps.sql,
      (tx) => tx<{ v: string }[]>`select current_setting('hnsw.iterative_scan', true) as v`,
    );
    assert.equal(iterative[0]?.v, 'relaxed_order');
    const jit = await withSearchSettings(d.deps.sql, (tx) => tx<{ v: string }[]>`select current_setting('jit') as v`);
    assert.equal(jit[0]?.v, 'off', 'no LLVM compilation of a search statement (search.jit.test.ts)');
    for (let i = 0; i < 4; i++) {
      const [outside] = await d.deps.sql<{ v: string | null }[]>`select current_setting('hnsw.ef_search', true) as v`;
      assert.notEqual(outside?.v, String(d.config.HNSW_EF_SEARCH), 'set locally: the server connection goes back clean');
    }
  });

  it('a daemon with DATABASE_POOL_URL migrates a new database over DATABASE_URL (advisory lock held across statements)', async () => {
    const fresh = await createTestDatabase('pgb_mig', { empty: true });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-pgb-'));
    try {
      const config = loadConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: fresh.url,
        DATABASE_POOL_URL: bouncer.url(fresh.url),
        SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123456789abcdef',
        EMBEDDING_PROVIDER: 'ollama',
        OLLAMA_HOST: ollama.url,
      });
      const daemon = await startDaemon(resolvedConfig(config), createLogger('silent'), { api: true, worker: false });
      try {
        const ready = await fetch(`${daemon.url}/readyz`);
        assert.equal(ready.status, 200, await ready.text());
      } finally {
        await daemon.stop();
      }
    } finally {
      await fresh.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('pgbouncer down: 503 SERVICE_UNAVAILABLE with Retry-After, not 500; back up: the API answers again', async () => {
    await bouncer.stop();
    try {
      const r = await req('GET', '/api/v1/collections/', { key: t.key });
      assert.equal(r.status, 503, r.text);
      assert.equal(r.body.code, 'SERVICE_UNAVAILABLE');
      assert.ok(r.headers.get('retry-after'));
    } finally {
      await bouncer.start();
    }
    await logs.waitFor((l) => l.msg === 'database reachable again', 20_000, 'the pool to be reachable again');
    assert.equal((await req('GET', '/api/v1/collections/', { key: t.key })).status, 200);
  });
});
