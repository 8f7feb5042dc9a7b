// The small stumbles of a new user's first hour with the CLI, each against a real daemon: downloading
// into a folder that does not exist yet, logging in with the web UI's address, and a webhook test
// whose receiver answered an error (which is not a private-URL problem).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { samplePath } from './fixtures/samples.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift CLI: first-hour stumbles', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  let scratch: string;
  let failing: Server;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env } });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_first_hour', env: { ALLOW_PRIVATE_URLS: 'true' } });
    t = await createTenant(d, 'first-hour');
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    scratch = await mkdtemp(path.join(os.tmpdir(), 'docsift-first-hour-'));
    failing = createServer((_req, res) => res.writeHead(502).end('bad gateway'));
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    failing?.close();
    await d?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('docs download -o newdir/ creates the folder and saves the file under its original name', async () => {
    assert.equal((await cli(['collections', 'create', 'Downloads'])).code, 0);
    const up = await cli(['docs', 'upload', samplePath('sample.txt'), '-c', 'downloads', '--json']);
    assert.equal(up.code, 0, up.stderr);
    const uuid = up.json().uploaded[0].uuid as string;
    const dir = path.join(scratch, 'newdir') + path.sep;
    const dl = await cli(['docs', 'download', uuid, '-o', dir, '--json']);
    assert.equal(dl.code, 0, dl.stderr);
    assert.equal(dl.json().path, path.join(scratch, 'newdir', 'sample.txt'));
    assert.deepEqual(await readFile(dl.json().path), await readFile(samplePath('sample.txt')));
    // A file path in a folder that does not exist yet works too.
    const nested = path.join(scratch, 'a', 'b', 'copy.txt');
    const dl2 = await cli(['docs', 'download', uuid, '-o', nested]);
    assert.equal(dl2.code, 0, dl2.stderr);
    assert.deepEqual(await readFile(nested), await readFile(samplePath('sample.txt')));
  });

  it("login with the web UI's address says it is not the API's address", async () => {
    const r = await runCli(['login', '--url', `${d.url}/app/`, '--api-key-stdin'], { env: (await cliEnv()).env, input: t.key });
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /not valid JSON/);
    assert.match(r.stderr, /not the docsift API/);
    assert.match(r.stderr, new RegExp(`hint: .*--url ${d.url.replace(/[.]/g, '\\.')}(\\s|$)`, 'm'));
  });

  it('a webhook test whose receiver answered 502 blames the receiver, not ALLOW_PRIVATE_URLS', async () => {
    const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hooks`;
    assert.equal((await cli(['webhooks', 'set', url])).code, 0);
    const r = await cli(['webhooks', 'test']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\(WEBHOOK_TEST_FAILED\)/);
    assert.match(r.stderr, /^hint: .*answered HTTP 502/m);
    assert.doesNotMatch(r.stderr, /ALLOW_PRIVATE_URLS/);
  });
});
