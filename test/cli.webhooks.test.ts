// `docsift webhooks …` against a real daemon (worker on, private URLs allowed as in local
// development): `webhooks listen` registers itself, verifies real signed deliveries (a test event
// and a document.indexed event), rejects a forged one and forwards to a local app; then the
// configuration commands, the delivery log and redelivery.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, spawnCli, type CliEnv } from '../cli/testing/run-cli.js';
import { samplePath } from './fixtures/samples.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift CLI: webhooks', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  let app: Server;
  let appUrl: string;
  const appReceived: { headers: IncomingHttpHeaders; body: string }[] = [];
  let listenerUrl: string;
  let deliveryIds: string[] = [];
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env }, timeoutMs: 90_000 });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_webhooks', worker: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
    t = await createTenant(d, 'cli-hooks');
    e = await cliEnv();
    const login = await runCli(['login', '--url', d.url, '--api-key-stdin'], { env: e.env, input: t.key });
    assert.equal(login.code, 0, login.stderr);
    assert.equal((await cli(['collections', 'create', 'Hooked'])).code, 0);
    // The developer's app that `listen --forward-to` hands verified deliveries to.
    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        appReceived.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
  });
  after(async () => {
    app?.close();
    await d?.close();
  });

  it('without a secret and without --register, listen refuses to start (exit 2) and changes nothing', async () => {
    const r = await cli(['webhooks', 'listen', '--port', '0']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /No signing secret/);
    assert.deepEqual((await cli(['webhooks', 'get', '--json'])).json(), { configured: false, url: null, is_active: false });
  });

  it('listen --register verifies real deliveries, rejects a forged one and forwards to the app', async () => {
    const listener = await spawnCli(
      ['webhooks', 'listen', '--port', '0', '--register', '--forward-to', appUrl, '--max-events', '2', '--json'],
      { env: e.env },
    );
    try {
      const ready = JSON.parse(await listener.waitForLine((l) => l.includes('"listening"')));
      assert.equal(ready.verifying, true);
      assert.equal(ready.forward_to, appUrl);
      assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      assert.equal(ready.registered, ready.url);
      listenerUrl = ready.url;
      // The secret shown on creation went into the profile.
      const config = JSON.parse(await readFile(path.join(e.configDir, 'config.json'), 'utf8'));
      assert.match(config.profiles.default.webhook_secret, /^whsec_/);

      // A forged delivery: well-formed, current timestamp, wrong signature.
      const forged = await fetch(listenerUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
          'x-service-signature': `sha256=${'0'.repeat(64)}`,
        },
        body: '{"id":"x","event":"document.indexed","data":{}}',
      });
      assert.equal(forged.status, 400);

      const test = await cli(['webhooks', 'test', '--json']);
      assert.equal(test.code, 0, test.stderr);
      const tj = test.json();
      assert.equal(tj.delivered, true);
      assert.equal(tj.status_code, 202, "the app's answer is passed back to the service");

      const up = await cli(['docs', 'upload', samplePath('sample.md'), '-c', 'hooked', '--wait', '--quiet']);
      assert.equal(up.code, 0, up.stderr);
      assert.equal(await listener.exited, 0, listener.stderr());

      const events = listener.lines.map((l) => JSON.parse(l)).filter((x) => x.type === 'event');
      assert.equal(events.length, 3, listener.lines.join('\n'));
      const [bad, testEvent, indexed] = events;
      assert.equal(bad.verified, false);
      assert.match(bad.reason, /^signature_mismatch/);
      assert.equal(testEvent.verified, true);
      assert.equal(testEvent.event, 'webhook.test');
      assert.equal(testEvent.event_id, tj.event_id);
      assert.deepEqual(testEvent.forward.status, 202);
      assert.equal(indexed.verified, true);
      assert.equal(indexed.event, 'document.indexed');
      assert.equal(indexed.payload.data.title, 'sample.md');
      assert.equal(indexed.payload.data.status, 'indexed');
      assert.equal(indexed.payload.data.error_message, null);
      assert.equal(typeof indexed.payload.data.tags, 'string');
      assert.equal(indexed.forward.status, 202);

      // The app got exactly the verified deliveries, bytes and signature headers untouched.
      assert.equal(appReceived.length, 2);
      assert.deepEqual(JSON.parse(appReceived[0]!.body), testEvent.payload);
      assert.match(String(appReceived[1]!.headers['x-service-signature']), /^sha256=[0-9a-f]{64}$/);
      assert.equal(appReceived[1]!.headers['x-service-event-id'], indexed.event_id);
      // The listener created the webhook, so it removed it when it ended.
      assert.deepEqual((await cli(['webhooks', 'get', '--json'])).json(), { configured: false, url: null, is_active: false });
    } finally {
      listener.child.kill();
    }
  });

  it('get, deliveries and redeliver (to a receiver that is gone: exit 1)', async () => {
    // The log is the organization's: it outlives the listener's webhook. Point a new one at the gone receiver.
    assert.equal((await cli(['webhooks', 'set', listenerUrl])).code, 0);
    assert.deepEqual((await cli(['webhooks', 'get', '--json'])).json(), { configured: true, url: listenerUrl, is_active: true });
    const list = await cli(['webhooks', 'deliveries', '--json']);
    const rows = list.json() as {
      id: string;
      event_type: string;
      success: boolean;
      status_code: number | null;
      attempt: number;
      trigger: string;
    }[];
    assert.ok(
      rows.some((r) => r.event_type === 'webhook.test' && r.trigger === 'test' && r.success && r.status_code === 202),
      JSON.stringify(rows),
    );
    assert.ok(
      rows.some((r) => r.event_type === 'document.indexed' && r.trigger === 'automatic' && r.success),
      JSON.stringify(rows),
    );
    deliveryIds = rows.map((r) => r.id);
    const human = await cli(['webhooks', 'deliveries']);
    assert.match(human.stdout, /^WHEN\s+EVENT\s+TRY\s+TRIGGER\s+RESULT\s+HTTP\s+MS\s+ERROR\s+ID$/m);

    const re = await cli(['webhooks', 'redeliver', deliveryIds[0]!, '--json']);
    assert.equal(re.code, 1);
    const rj = re.json();
    assert.equal(rj.success, false);
    assert.equal(rj.trigger, 'manual');
    assert.equal(rj.status_code, null);
    assert.ok(rj.error, 'the connection error is reported');

    const failedTest = await cli(['webhooks', 'test']);
    assert.equal(failedTest.code, 1);
    assert.match(failedTest.stderr, /\(WEBHOOK_TEST_FAILED\)/);
    assert.match(failedTest.stderr, /^hint: .*ALLOW_PRIVATE_URLS/m);
  });

  it('set, rotate-secret (saved to the profile, shown once), disable, enable, delete', async () => {
    const set = await cli(['webhooks', 'set', appUrl, '--json']);
    assert.deepEqual(set.json(), { configured: true, url: appUrl, is_active: true });
    const rot = await cli(['webhooks', 'rotate-secret', '--json']);
    const secret = rot.json().secret;
    assert.match(secret, /^whsec_/);
    assert.equal(rot.json().secret_saved_to_profile, 'default');
    const config = JSON.parse(await readFile(path.join(e.configDir, 'config.json'), 'utf8'));
    assert.equal(config.profiles.default.webhook_secret, secret);
    const human = await cli(['webhooks', 'rotate-secret']);
    assert.match(human.stdout, /Signing secret: whsec_\S+/);
    assert.match(human.stderr, /The secret is shown only once\. Saved to profile "default"/);

    assert.equal((await cli(['webhooks', 'disable', '--json'])).json().is_active, false);
    assert.equal((await cli(['webhooks', 'enable', '--json'])).json().is_active, true);
    assert.deepEqual((await cli(['webhooks', 'delete', '--yes', '--json'])).json(), { configured: false, deleted: true });
    const gone = await cli(['webhooks', 'test', '--json']);
    assert.equal(gone.code, 1);
    assert.equal(JSON.parse(gone.stderr).error.code, 'WEBHOOK_NOT_CONFIGURED');
  });
});
