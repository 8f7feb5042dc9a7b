// `docsift webhooks listen` against a real daemon (worker on, private URLs allowed): --register is
// undone when the listener ends (SIGINT, SIGTERM), and a repeated delivery of one event (same
// X-Service-Event-Id, as the service's at-least-once retries send) is answered but not forwarded.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, spawnCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift webhooks listen: cleanup and repeats', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let app: Server;
  let appUrl: string;
  const forwarded: string[] = [];
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env }, timeoutMs: 60_000 });
  const webhook = async (key = t.key) => (await http(d.url)('GET', '/api/v1/webhooks/', { key })).body;

  before(async () => {
    d = await startTestDaemon({ label: 'cli_listen', worker: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
    [t, other] = await Promise.all([createTenant(d, 'cli-listen'), createTenant(d, 'cli-listen-other')]);
    e = await cliEnv();
    assert.equal((await runCli(['login', '--url', d.url, '--api-key-stdin'], { env: e.env, input: t.key })).code, 0);
    app = createServer((req, res) => {
      forwarded.push(String(req.headers['x-service-event-id']));
      req.resume().on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
  });
  after(async () => {
    await new Promise<void>((r) => app.close(() => r()));
    await d?.close();
  });

  const listen = async (extra: string[], env: Record<string, string> = {}) => {
    const l = await spawnCli(['webhooks', 'listen', '--port', '0', '--register', '--json', ...extra], { env: { ...e.env, ...env } });
    const ready = JSON.parse(await l.waitForLine((x) => x.includes('"listening"')));
    return { l, ready };
  };

  it('a webhook the listener created is removed when it is stopped with SIGINT', async () => {
    assert.equal((await webhook()).configured, false);
    const { l, ready } = await listen([]);
    try {
      assert.equal((await webhook()).url, ready.url);
      l.child.kill('SIGINT');
      assert.equal(await l.exited, 0, l.stderr());
      assert.deepEqual(await webhook(), { configured: false, url: null, is_active: false });
    } finally {
      l.child.kill('SIGKILL');
    }
  });

  it('a webhook that existed is set back to its address (and state) on SIGTERM', async () => {
    assert.equal((await cli(['webhooks', 'set', appUrl])).code, 0);
    assert.equal((await cli(['webhooks', 'disable'])).code, 0);
    const { l, ready } = await listen([]);
    try {
      assert.deepEqual(await webhook(), { configured: true, url: ready.url, is_active: false });
      l.child.kill('SIGTERM');
      assert.equal(await l.exited, 0, l.stderr());
      assert.deepEqual(await webhook(), { configured: true, url: appUrl, is_active: false });
    } finally {
      l.child.kill('SIGKILL');
    }
    assert.equal((await cli(['webhooks', 'enable'])).code, 0);
  });

  it('a repeated event (redelivered: same event id) is answered, printed as a repeat, neither forwarded nor counted', async () => {
    forwarded.length = 0;
    const { l } = await listen(['--forward-to', appUrl, '--max-events', '2']);
    try {
      const first = await cli(['webhooks', 'test', '--json']);
      assert.equal(first.code, 0, first.stderr);
      const eventId = first.json().event_id as string;
      const deliveries = (await cli(['webhooks', 'deliveries', '--json'])).json() as { id: string; event_id?: string; success: boolean }[];
      const delivered = deliveries.find((x) => x.success && (x.event_id === undefined || x.event_id === eventId));
      assert.ok(delivered, JSON.stringify(deliveries));
      const again = await cli(['webhooks', 'redeliver', delivered.id, '--json']);
      assert.equal(again.code, 0, again.stderr);
      await l.waitForLine((x) => x.includes('"repeat":true'));
      const second = await cli(['webhooks', 'test', '--json']);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(await l.exited, 0, l.stderr());
      const events = l.lines.map((x) => JSON.parse(x)).filter((x) => x.type === 'event');
      assert.deepEqual(
        events.map((x) => [x.event_id, !!x.repeat]),
        [
          [eventId, false],
          [eventId, true],
          [second.json().event_id, false],
        ],
      );
      assert.deepEqual(forwarded, [eventId, second.json().event_id]);
    } finally {
      l.child.kill('SIGKILL');
    }
  });

  it("a listener of another organization registers and unregisters only its own organization's webhook", async () => {
    const mine = await webhook();
    const { l, ready } = await listen([], { DOCSIFT_API_KEY: other.key, DOCSIFT_URL: d.url });
    try {
      assert.equal((await webhook(other.key)).url, ready.url);
      assert.deepEqual(await webhook(), mine);
      l.child.kill('SIGINT');
      assert.equal(await l.exited, 0, l.stderr());
      assert.equal((await webhook(other.key)).configured, false);
      assert.deepEqual(await webhook(), mine);
    } finally {
      l.child.kill('SIGKILL');
    }
  });
});
