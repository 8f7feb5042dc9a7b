// `docsift docs sync` reports what happened on the wire, and stops at a lost server: a daemon behind
// a loopback proxy that dies mid-run (its listening socket and every connection closed), files the
// service refuses after receiving them, replaces counted as replaces, and error codes on skips.
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

/** A proxy to `target` that, at the `dieAt`-th upload request, closes its port and every open connection. */
async function dyingProxy(target: string, dieAt: number): Promise<{ url: string; server: Server; forwarded: () => number }> {
  const t = new URL(target);
  let uploads = 0;
  let forwarded = 0;
  const server = createServer((req, res) => {
    if (req.method === 'POST' && /\/documents\/$/.test(req.url ?? '') && ++uploads >= dieAt) {
      server.close();
      server.closeAllConnections();
      return;
    }
    forwarded++;
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, forwarded: () => forwarded };
}

describe('docsift docs sync: reports and a lost server', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let tmp: string;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env }, timeoutMs: 120_000 });
  const folder = async (name: string, files: Record<string, string>) => {
    const dir = path.join(tmp, name);
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), text);
    }
    return dir;
  };

  before(async () => {
    d = await startTestDaemon({ label: 'cli_sync_report' });
    [t, other] = await Promise.all([createTenant(d, 'cli-sync-report'), createTenant(d, 'cli-sync-report-other')]);
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    tmp = await mkdtemp(path.join(os.tmpdir(), 'docsift-sync-report-'));
    for (const name of ['Lost', 'Refused', 'Changed'])
      assert.equal((await http(d.url)('POST', '/api/v1/collections/', { key: t.key, json: { name } })).status, 201);
  });
  after(async () => {
    await d?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('a server lost mid-sync stops the run at once with one line: what was sent and how to finish', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`notes/n${String(i).padStart(2, '0')}.md`, `# Note ${i}\nbody ${i}`]),
    );
    const dir = await folder('lost', files);
    const proxy = await dyingProxy(d.url, 3);
    const started = Date.now();
    const r = await cli(['docs', 'sync', dir, '-c', 'lost', '--batch-size', '2', '--concurrency', '2'], { DOCSIFT_URL: proxy.url });
    const elapsed = Date.now() - started;
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    assert.equal(errors.length, 1, r.stderr);
    assert.match(
      errors[0]!,
      /^error: Could not connect to http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED \(connection refused[^)]*\)\. Sync stopped after (\d+) of 40 changes: \1 uploaded, 0 replaced, 0 deleted \(\d+ B sent\)\. Run the same command again to finish; files already sent are not sent twice\. \(CONNECTION_LOST\)$/,
    );
    assert.doesNotMatch(r.stderr, /UND_ERR|n3\d\.md|fetch failed/);
    assert.ok(r.stderr.split('\n').filter(Boolean).length <= 6, r.stderr);
    assert.ok(elapsed < 20_000, `${elapsed} ms`);
    const uploaded = Number(/Sync stopped after (\d+)/.exec(errors[0]!)![1]);

    // Run again (server back): only what is missing goes; a batch whose reply was lost is found unchanged.
    const again = await cli(['docs', 'sync', dir, '-c', 'lost', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const c = again.json().counts;
    assert.equal(c.uploaded + c.unchanged, 40);
    assert.ok(c.unchanged >= uploaded, JSON.stringify(c));
  });

  it('files the service refuses count as sent (progress and summary agree) and carry a code in --json', async () => {
    // A .pdf that is not a PDF and a .docx that is not a zip: both refused after upload (INVALID_FILE_CONTENT).
    const dir = await folder('refused', { 'fake.pdf': 'this is not a pdf at all, only text', 'fake.docx': 'nor a docx', 'ok.md': '# ok' });
    const human = await cli(['docs', 'sync', dir, '-c', 'refused']);
    assert.equal(human.code, 0, human.stderr);
    const progress = /upload: 3\/3 files, (\d+ B)\/\d+ B \(1 uploaded, 0 replaced, 2 skipped, 0 failed\)/.exec(human.stderr);
    assert.ok(progress, human.stderr);
    assert.match(
      human.stdout,
      new RegExp(`1 uploaded, 0 replaced, 0 unchanged, 0 deleted, 2 refused by the server \\(${progress[1]} sent\\)`),
    );
    assert.match(human.stdout, /sent again by every run/);

    const json = await cli(['docs', 'sync', dir, '-c', 'refused', '--json']);
    const j = json.json();
    assert.equal(j.bytes_sent, 'this is not a pdf at all, only text'.length + 'nor a docx'.length);
    assert.deepEqual(
      j.skipped.map((s: { key: string; code: string }) => [s.key, s.code]),
      [
        ['fake.docx', 'INVALID_FILE_CONTENT'],
        ['fake.pdf', 'INVALID_FILE_CONTENT'],
      ],
    );
    const local = await cli(['docs', 'sync', await folder('local-skip', { 'x.png': 'png' }), '-c', 'refused', '--json']);
    assert.deepEqual(
      local.json().skipped.map((s: { code: string }) => s.code),
      ['UNSUPPORTED_FILE_TYPE'],
    );
  });

  it('a changed file shows as replaced in progress and summary alike', async () => {
    const dir = await folder('changed', { 'a.md': '# A\none' });
    assert.equal((await cli(['docs', 'sync', dir, '-c', 'changed'])).code, 0);
    await writeFile(path.join(dir, 'a.md'), '# A\ntwo, longer');
    const r = await cli(['docs', 'sync', dir, '-c', 'changed']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\(0 uploaded, 1 replaced, 0 skipped, 0 failed\)/);
    assert.match(r.stdout, /0 uploaded, 1 replaced, 0 unchanged/);
    assert.doesNotMatch(r.stderr, /1 uploaded/);
  });

  it("another organization's key cannot sync into the collection (not found), and nothing is sent", async () => {
    const dir = await folder('intruder', { 'x.md': '# x' });
    const r = await cli(['docs', 'sync', dir, '-c', 'changed'], { DOCSIFT_API_KEY: other.key });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /COLLECTION_NOT_FOUND|No collection/);
  });

  it('a refused connection names the address, the code and its meaning', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await cli(['whoami'], { DOCSIFT_URL: url, DOCSIFT_MAX_RETRIES: '0' });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(`^error: Could not connect to ${url.replace(/\./g, '\\.')}: ECONNREFUSED \\(connection refused`, 'm'),
    );
  });
});
