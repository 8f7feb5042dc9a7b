// With SEARCH_WARM_UP (the default), the API listens only after the query embedder has answered
// once, so the first search after "ready" does not load the model (measured by
// `npm run bench:startup`); an embedding provider that is down delays nothing: the daemon starts,
// logs a warning, and hybrid search answers from text.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { captureLogs, WARN } from './helpers/log-capture.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTestDatabase } from './helpers/pg.js';

describe('search warm-up: the API listens once the query embedder is warm', () => {
  let ollama: FakeOllama | undefined;
  const daemons: TestDaemon[] = [];
  after(async () => {
    for (const d of daemons) await d.close();
    await ollama?.close();
  });

  const env = (url: string, warm: boolean) => ({
    EMBEDDING_PROVIDER: 'ollama',
    OLLAMA_HOST: url,
    OLLAMA_MODEL: 'nomic-embed-text',
    SEARCH_WARM_UP: String(warm),
    LOG_LEVEL: 'info',
  });

  it('has asked the query embedder before it listens', { timeout: 60_000 }, async () => {
    ollama = await startFakeOllama({ dimension: 16 });
    const logs = captureLogs();
    const d = await startTestDaemon({ label: 'warmup', env: env(ollama.url, true), logTo: logs.stream });
    daemons.push(d);
    assert.ok(ollama.requests >= 1, 'the query embedder answered before the start resolved');
    const line = logs.lines.find((l) => l.msg === 'search warmed up');
    assert.ok(line, 'one warm-up line');
    assert.equal(typeof line.embedderMs, 'number');
  });

  it('without SEARCH_WARM_UP asks the embedder nothing at start', { timeout: 60_000 }, async () => {
    const cold = await startFakeOllama({ dimension: 16 });
    try {
      const d = await startTestDaemon({ label: 'warmupoff', env: env(cold.url, false) });
      daemons.push(d);
      assert.equal(cold.requests, 0);
    } finally {
      await cold.close();
    }
  });

  it('starts with the embedding provider down, with one warning', { timeout: 60_000 }, async () => {
    const down = await startFakeOllama({ dimension: 16 });
    down.setDown(true);
    const logs = captureLogs();
    try {
      const d = await startTestDaemon({ label: 'warmupdown', env: env(down.url, true), logTo: logs.stream });
      daemons.push(d);
      assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
      const warns = logs.lines.filter((l) => l.level === WARN && /warm-up/.test(l.msg));
      assert.equal(warns.length, 1, JSON.stringify(warns));
      assert.equal(logs.lines.find((l) => l.msg === 'search warmed up')?.embedderMs, null);
    } finally {
      await down.close();
    }
  });

  it('plans a search’s statements over no collection before it listens, in text mode with the embedder down', {
    timeout: 60_000,
  }, async () => {
    const down = await startFakeOllama({ dimension: 16 });
    down.setDown(true);
    const logs = captureLogs();
    const up = await startFakeOllama({ dimension: 16 });
    const upLogs = captureLogs();
    try {
      daemons.push(await startTestDaemon({ label: 'warmstmts', env: env(up.url, true), logTo: upLogs.stream }));
      const warm = upLogs.lines.find((l) => l.msg === 'search warmed up');
      assert.equal(typeof warm?.statementsMs, 'number', 'the hybrid searches over no collection ran');
      assert.equal(up.requests, 1, 'their query is the one the embedder warmed with: no further embedding');
      assert.equal(warm?.found, null, 'no collection holds a word to search for');
      daemons.push(await startTestDaemon({ label: 'warmstmtsdown', env: env(down.url, true), logTo: logs.stream }));
      assert.equal(typeof logs.lines.find((l) => l.msg === 'search warmed up')?.statementsMs, 'number', 'text mode without the embedder');
      assert.ok(!logs.lines.some((l) => /did not warm up/.test(l.msg)));
    } finally {
      await down.close();
      await up.close();
    }
  });

  it('searches a collection for a word it holds before it listens, and finds it', { timeout: 120_000 }, async () => {
    const up = await startFakeOllama({ dimension: 16 });
    const db = await createTestDatabase('warmfound');
    try {
      const seed = await startTestDaemon({ label: 'warmfound', db, worker: true, env: env(up.url, false) });
      const req = http(seed.url);
      const t = await createTenant(seed, 'warmfound');
      const col = await makeCollection(req, t.key, 'Harbour');
      const r = await req('POST', `/api/v1/collections/${col.uuid}/documents/`, {
        key: t.key,
        json: { source_type: 'text', title: 'pilots', content: 'Harbour pilots keep the ledger of every ship.' },
      });
      assert.equal(r.status, 201, r.text);
      await waitSettled(req, t.key, [r.body.uuid]);
      await seed.close();
      const logs = captureLogs();
      daemons.push(await startTestDaemon({ label: 'warmfound2', db, env: env(up.url, true), logTo: logs.stream }));
      const warm = logs.lines.find((l) => l.msg === 'search warmed up');
      assert.equal(typeof warm?.statementsMs, 'number');
      assert.ok(Number(warm?.found) >= 1, JSON.stringify(warm));
    } finally {
      await up.close();
      await db.drop();
    }
  });
});
