// `docsift-daemon reindex`: rebuilds the BM25 index from the stored chunks (after a change of
// k1/b, or by hand), as a real child process on the daemon's database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { assertIndexExact, assertIndexLayout } from './helpers/bm25.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function runDaemonCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

const search = async (d: TestDaemon, t: Tenant, query: string) => {
  const r = await http(d.url)('POST', '/api/v1/search/', { key: t.key, json: { query, mode: 'text', limit: 20, explain: true } });
  assert.equal(r.status, 200, r.text);
  return r.body.results.map((h: { chunk_id: string; explain: { text: { score: number } } }) => [
    h.chunk_id,
    h.explain.text.score.toFixed(6),
  ]);
};

describe('docsift-daemon reindex', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  before(async () => {
    d = await startTestDaemon({ label: 'reindex', worker: true });
    const req = http(d.url);
    a = await createTenant(d, 'ra');
    b = await createTenant(d, 'rb');
    const ca = await makeCollection(req, a.key, 'Reindex A');
    const cb = await makeCollection(req, b.key, 'Reindex B');
    const docs: string[] = [];
    for (let i = 0; i < 8; i++)
      docs.push((await addText(req, a.key, ca.uuid, `Note ${i}`, `alpha beta ${'gamma '.repeat(i)} shared words number ${i}`)).uuid);
    const secret = (await addText(req, b.key, cb.uuid, 'Secret', 'alpha gamma gamma gamma quillfeather shared words')).uuid;
    await waitSettled(req, a.key, docs);
    await waitSettled(req, b.key, [secret]);
    await d.deps.sql`select fold_text_stats()`;
    // Leave fresh rows and a tombstone behind: reindex must account for both.
    assert.equal((await req('DELETE', `/api/v1/documents/${docs[0]}/`, { key: a.key })).status, 204);
    const late = (await addText(req, a.key, ca.uuid, 'Late', 'gamma gamma alpha late arrival')).uuid;
    await waitSettled(req, a.key, [late]);
  });
  after(async () => d?.close());

  it('rebuilds every list from the chunks: exact frequencies, no fresh rows or tombstones, the same results', async () => {
    const sql = d.deps.sql;
    const [pending] = await sql<{ fresh: number }[]>`select count(*)::int as fresh from text_fresh`;
    assert.ok(pending!.fresh > 0, 'fresh rows wait for a fold');
    const before = await search(d, a, 'gamma alpha shared');
    const r = await runDaemonCommand(['reindex'], { DATABASE_URL: d.db.url, DATA_DIR: d.dataDir });
    assert.equal(r.code, 0, r.err);
    const [count] = await sql<{ chunks: number }[]>`select count(*)::int as chunks from chunks`;
    const chunks = count!.chunks;
    assert.match(r.out, new RegExp(`Rebuilt the full-text index: ${chunks} chunk\\(s\\), \\d+ list\\(s\\), \\d+ posting\\(s\\)`));
    const [left] = await sql<{ fresh: number; dead: number }[]>`
      select (select count(*) from text_fresh)::int as fresh, (select count(*) from text_blocks where df < 0)::int as dead`;
    assert.deepEqual({ ...left }, { fresh: 0, dead: 0 });
    await assertIndexExact(sql);
    await assertIndexLayout(sql);
    assert.deepEqual(await search(d, a, 'gamma alpha shared'), before);
  });

  it('keeps tenants apart: lists and statistics are rebuilt per collection', async () => {
    const hits = await search(d, a, 'quillfeather gamma');
    const [secret] = await d.deps.sql<{ id: string }[]>`select c.id from chunks c where c.content like '%quillfeather%'`;
    assert.ok(hits.length > 0);
    assert.ok(
      hits.every(([id]: [string]) => id !== secret!.id),
      "the other tenant's chunk never appears",
    );
    const mine = await search(d, b, 'quillfeather');
    assert.deepEqual(
      mine.map(([id]: [string]) => id),
      [secret!.id],
    );
  });

  it('fails with a clear message and a non-zero exit when the database cannot be reached', async () => {
    const r = await runDaemonCommand(['reindex'], { DATABASE_URL: 'postgres://nobody:wrong@127.0.0.1:1/none', DATA_DIR: d.dataDir });
    assert.equal(r.code, 1);
    assert.match(r.err, /^docsift-daemon: /);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  });
});
