// `webhooks listen --register` checks its signing secret before it says it is listening: it has the
// service send a signed test delivery to itself. A secret saved in the profile that was rotated
// elsewhere since is reported at once, with what to do, instead of rejecting every delivery.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, spawnCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift webhooks listen: the signing secret', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  const cli = (args: string[], timeoutMs = 60_000) => runCli(args, { env: e.env, timeoutMs });
  const savedSecret = async () =>
    JSON.parse(await readFile(path.join(e.configDir, 'config.json'), 'utf8')).profiles.default.webhook_secret as string;

  before(async () => {
    d = await startTestDaemon({ label: 'cli_hook_secret', worker: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
    t = await createTenant(d, 'hook-secret');
    e = await cliEnv();
    const login = await runCli(['login', '--url', d.url, '--api-key-stdin'], { env: e.env, input: t.key });
    assert.equal(login.code, 0, login.stderr);
  });
  after(() => d?.close());

  /** Starts a listener, returns its "listening" line, triggers one test event and waits for the exit. */
  async function listenOnce(extra: string[] = []) {
    const listener = await spawnCli(['webhooks', 'listen', '--port', '0', '--register', '--max-events', '1', '--json', ...extra], {
      env: e.env,
    });
    try {
      const ready = JSON.parse(await listener.waitForLine((l) => l.includes('"listening"')));
      const test = await cli(['webhooks', 'test', '--json']);
      assert.equal(test.code, 0, test.stderr);
      assert.equal(await listener.exited, 0, listener.stderr());
      const events = listener.lines.map((l) => JSON.parse(l)).filter((x) => x.type === 'event');
      return { ready, events };
    } finally {
      listener.child.kill();
    }
  }

  it('a fresh secret is checked with a signed test delivery, which is neither printed nor counted', async () => {
    const { ready, events } = await listenOnce();
    assert.equal(ready.secret_check, 'ok');
    assert.match(await savedSecret(), /^whsec_/);
    assert.equal(events.length, 1, 'only the event triggered after start');
    assert.equal(events[0].verified, true);
  });

  it('a saved secret rotated elsewhere is reported at start with what to do, and the listener stops', async () => {
    // A webhook the user keeps (the listener's own was removed when it ended); its secret is saved.
    const kept = 'http://127.0.0.1:9/kept';
    assert.equal((await cli(['webhooks', 'set', kept])).code, 0);
    const stale = await savedSecret();
    const rotated = await http(d.url)('POST', '/api/v1/webhooks/rotate-secret/', { key: t.key });
    assert.equal(rotated.status, 200, rotated.text);
    const r = await cli(['webhooks', 'listen', '--port', '0', '--register'], 30_000);
    assert.equal(r.code, 1, `exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, /^error: The signing secret saved in profile "default" does not match the webhook's/m);
    assert.match(r.stderr, /^hint: .*--rotate-secret.*--secret whsec_/m);
    assert.equal(await savedSecret(), stale, 'nothing rotated behind the user’s back');
    assert.equal((await http(d.url)('GET', '/api/v1/webhooks/', { key: t.key })).body.url, kept, 'the webhook is set back');
  });

  it('--rotate-secret replaces the stale secret, saves it and verifies with it', async () => {
    const stale = await savedSecret();
    const { ready, events } = await listenOnce(['--rotate-secret']);
    assert.equal(ready.secret_check, 'ok');
    const fresh = await savedSecret();
    assert.notEqual(fresh, stale);
    assert.equal(events[0].verified, true);
  });
});
