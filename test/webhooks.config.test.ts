import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isPrivateAddress } from '../daemon/src/net/ssrf.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startWebhookReceiver, TOLERANCE_SECONDS, verifyWebhook, type WebhookReceiver } from './helpers/webhook-receiver.js';

// Configuration, SSRF refusals, the test endpoint, secrets, access rules and the receiver-side
// replay check. No worker: the test endpoint delivers synchronously inside the request.

const SECRET_RE = /^whsec_[A-Za-z0-9_-]{32,}$/;
const CONFIG_KEYS = ['configured', 'is_active', 'url'];

describe('webhook configuration', () => {
  let d: TestDaemon; // ALLOW_PRIVATE_URLS=true, so the loopback receiver is allowed
  let strict: TestDaemon; // production-like: private targets refused
  let rx: WebhookReceiver;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let sreq: ReturnType<typeof http>;
  let secretA = '';

  before(async () => {
    [d, strict, rx] = await Promise.all([
      startTestDaemon({ label: 'webhooks_cfg', env: { ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '1000' } }),
      startTestDaemon({ label: 'webhooks_ssrf' }),
      startWebhookReceiver(),
    ]);
    req = http(d.url);
    sreq = http(strict.url);
    a = await createTenant(d, 'wh-a');
    b = await createTenant(d, 'wh-b');
  });
  after(async () => {
    await Promise.all([d?.close(), strict?.close(), rx?.close()]);
  });

  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
    assert.equal(typeof r.body.error, 'string');
  }

  it('GET without a webhook: configured false, url null, inactive', async () => {
    const r = await req('GET', '/api/v1/webhooks/', { key: a.key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { configured: false, url: null, is_active: false });
  });

  it('POST creates with 201 and the secret, shown only in that response', async () => {
    const r = await req('POST', '/api/v1/webhooks/', { key: a.key, json: { url: rx.url } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), [...CONFIG_KEYS, 'secret'].sort());
    assert.equal(r.body.configured, true);
    assert.equal(r.body.url, rx.url);
    assert.equal(r.body.is_active, true);
    assert.match(r.body.secret, SECRET_RE);
    secretA = r.body.secret;
    rx.secret = secretA;

    const g = await req('GET', '/api/v1/webhooks', { key: a.key });
    assert.equal(g.status, 200);
    assert.deepEqual(g.body, { configured: true, url: rx.url, is_active: true });
    assert.ok(!g.text.includes(secretA));
  });

  it('POST on an existing webhook updates the URL with 200 and no secret; the secret is unchanged', async () => {
    const other = `${rx.url}?v=2`;
    const r = await req('POST', '/api/v1/webhooks/', { key: a.key, json: { url: other } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { configured: true, url: other, is_active: true });
    assert.ok(!r.text.includes('whsec_'));
    // Still signed with the original secret: the receiver verifies with it.
    rx.reset();
    const t = await req('POST', '/api/v1/webhooks/test/', { key: a.key });
    assert.equal(t.status, 200, t.text);
    assert.equal(rx.requests.length, 1);
    assert.ok(rx.requests[0]!.verdict.ok);
    const back = await req('POST', '/api/v1/webhooks/', { key: a.key, json: { url: rx.url } });
    assert.equal(back.status, 200);
  });

  it('test endpoint: 200 with the receiver status; the event is signed, typed webhook.test and carries an id', async () => {
    rx.reset();
    const r = await req('POST', '/api/v1/webhooks/test/', { key: a.key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['delivered', 'delivery_id', 'duration_ms', 'event_id', 'status_code']);
    assert.equal(r.body.delivered, true);
    assert.equal(r.body.status_code, 200);
    assert.equal(typeof r.body.duration_ms, 'number');
    assert.ok(!r.text.includes(secretA));
    const got = rx.requests[0]!;
    assert.ok(got.verdict.ok, JSON.stringify(got.verdict));
    assert.equal(got.body.event, 'webhook.test');
    assert.equal(got.body.id, r.body.event_id);
    assert.equal(got.headers['x-service-event-id'], r.body.event_id);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'docsift-webhooks/1');
    assert.ok(!Number.isNaN(Date.parse(got.body.timestamp)));
  });

  it('test endpoint: 500 WEBHOOK_TEST_FAILED with the reason on non-2xx, connection refused and timeout', async () => {
    rx.respond = () => ({ status: 503, body: 'maintenance' });
    const r = await req('POST', '/api/v1/webhooks/test/', { key: a.key });
    assertError(r, 500, 'WEBHOOK_TEST_FAILED');
    assert.match(r.body.error, /HTTP 503/);

    rx.respond = () => ({ status: 200, delayMs: 1500 });
    const slow = await req('POST', '/api/v1/webhooks/test/', { key: a.key });
    assertError(slow, 500, 'WEBHOOK_TEST_FAILED');
    assert.match(slow.body.error, /Timed out/);
    rx.respond = ({ verdict }) => (verdict.ok ? { status: 200 } : { status: 401, body: verdict.reason });

    const closed = await startWebhookReceiver();
    const deadUrl = closed.url;
    await closed.close();
    await req('POST', '/api/v1/webhooks/', { key: a.key, json: { url: deadUrl } });
    const refused = await req('POST', '/api/v1/webhooks/test/', { key: a.key });
    assertError(refused, 500, 'WEBHOOK_TEST_FAILED');
    assert.match(refused.body.error, /Connection refused/);
    await req('POST', '/api/v1/webhooks/', { key: a.key, json: { url: rx.url } });
  });

  it('test endpoint: 404 WEBHOOK_NOT_CONFIGURED without a webhook', async () => {
    assertError(await req('POST', '/api/v1/webhooks/test/', { key: b.key }), 404, 'WEBHOOK_NOT_CONFIGURED');
  });

  it('rotate-secret returns a new secret once, and deliveries are signed with it', async () => {
    const r = await req('POST', '/api/v1/webhooks/rotate-secret/', { key: a.key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), [...CONFIG_KEYS, 'secret'].sort());
    assert.match(r.body.secret, SECRET_RE);
    assert.notEqual(r.body.secret, secretA);
    // The receiver still holds the old secret: it rejects, and the test endpoint says why.
    const stale = await req('POST', '/api/v1/webhooks/test/', { key: a.key });
    assertError(stale, 500, 'WEBHOOK_TEST_FAILED');
    assert.match(stale.body.error, /HTTP 401.*signature mismatch/);
    secretA = r.body.secret;
    rx.secret = secretA;
    assert.equal((await req('POST', '/api/v1/webhooks/test/', { key: a.key })).status, 200);
    const g = await req('GET', '/api/v1/webhooks/', { key: a.key });
    assert.ok(!g.text.includes(secretA));
    assertError(await req('POST', '/api/v1/webhooks/rotate-secret/', { key: b.key }), 404, 'WEBHOOK_NOT_CONFIGURED');
  });

  it('PATCH toggles is_active; the test endpoint still sends while inactive', async () => {
    const off = await req('PATCH', '/api/v1/webhooks/', { key: a.key, json: { is_active: false } });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.body, { configured: true, url: rx.url, is_active: false });
    assert.equal((await req('GET', '/api/v1/webhooks/', { key: a.key })).body.is_active, false);
    assert.equal((await req('POST', '/api/v1/webhooks/test/', { key: a.key })).status, 200);
    const on = await req('PATCH', '/api/v1/webhooks/', { key: a.key, json: { is_active: true } });
    assert.deepEqual(on.body, { configured: true, url: rx.url, is_active: true });
    assertError(await req('PATCH', '/api/v1/webhooks/', { key: a.key, json: { is_active: 'yes' } }), 400, 'VALIDATION_FAILED');
    assertError(await req('PATCH', '/api/v1/webhooks/', { key: b.key, json: { is_active: true } }), 404, 'WEBHOOK_NOT_CONFIGURED');
  });

  it('URL validation: missing, too long, non-http(s), credentials → 400 VALIDATION_FAILED on fields.url', async () => {
    const bad: unknown[] = [
      undefined,
      '',
      42,
      'not a url',
      'ftp://example.com/hook',
      'file:///etc/passwd',
      'https://user:pass@example.com/hook',
      'https://user@example.com/hook',
      `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`,
    ];
    for (const url of bad) {
      const r = await req('POST', '/api/v1/webhooks/', { key: b.key, json: url === undefined ? {} : { url } });
      assertError(r, 400, 'VALIDATION_FAILED');
      assert.ok(Array.isArray(r.body.fields?.url), `${String(url).slice(0, 40)}: ${r.text}`);
    }
    const max = `https://93.184.216.34/${'a'.repeat(2048 - 'https://93.184.216.34/'.length)}`;
    assert.equal(max.length, 2048);
    const ok = await sreq('POST', '/api/v1/webhooks/', { key: (await createTenant(strict, 'wh-long')).key, json: { url: max } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal((await req('GET', '/api/v1/webhooks/', { key: b.key })).body.configured, false);
  });

  describe('SSRF (private targets not allowed)', () => {
    let s: Tenant;
    before(async () => {
      s = await createTenant(strict, 'wh-ssrf');
    });

    it('refuses loopback, private, link-local and metadata targets at configuration time', async () => {
      const refused = [
        'http://127.0.0.1/hook',
        `http://127.0.0.1:${rx.port}/hook`,
        'http://10.1.2.3/hook',
        'http://192.168.0.10/hook',
        'http://172.16.5.4/hook',
        'http://169.254.169.254/latest/meta-data/',
        'http://localhost/hook',
        'http://LOCALHOST:8080/',
        'http://api.localhost/',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[fe80::1]/',
        'http://[fd00::1]/',
        'http://0.0.0.0/',
        'http://2130706433/',
        'http://0x7f.1/',
        'http://100.64.0.1/',
      ];
      for (const url of refused) {
        const r = await sreq('POST', '/api/v1/webhooks/', { key: s.key, json: { url } });
        assertError(r, 400, 'VALIDATION_FAILED');
        assert.ok(r.body.fields?.url?.[0], `${url}: ${r.text}`);
      }
      assert.equal((await sreq('GET', '/api/v1/webhooks/', { key: s.key })).body.configured, false);
    });

    it('refuses a host name whose DNS answer is private', async (t) => {
      const host = os.hostname();
      const addrs = await lookup(host, { all: true }).catch(() => []);
      if (!addrs.length || !addrs.every((x) => isPrivateAddress(x.address)))
        return t.skip(`${host} does not resolve to a private address here`);
      const r = await sreq('POST', '/api/v1/webhooks/', { key: s.key, json: { url: `http://${host}:${rx.port}/hook` } });
      assertError(r, 400, 'VALIDATION_FAILED');
      assert.match(r.body.fields.url[0], /resolves to a private address/);
    });

    it('accepts a public address', async () => {
      const r = await sreq('POST', '/api/v1/webhooks/', { key: s.key, json: { url: 'https://93.184.216.34/hooks/docsift' } });
      assert.equal(r.status, 201, r.text);
    });

    it('re-checks at delivery time: a stored URL that now points at a private address is refused and nothing is sent', async (t) => {
      // Simulates DNS rebinding and a URL stored while private targets were allowed: the checks run again per attempt.
      const host = os.hostname();
      const addrs = await lookup(host, { all: true }).catch(() => []);
      const targets = [`http://127.0.0.1:${rx.port}/hook`];
      if (addrs.length && addrs.every((x) => isPrivateAddress(x.address))) targets.push(`http://${host}:${rx.port}/hook`);
      else t.diagnostic(`${host} does not resolve privately: DNS-rebinding case skipped`);
      for (const url of targets) {
        await strict.deps.sql`update webhooks set url = ${url} where organization_id = ${s.orgId}`;
        rx.reset();
        const r = await sreq('POST', '/api/v1/webhooks/test/', { key: s.key });
        assertError(r, 500, 'WEBHOOK_TEST_FAILED');
        assert.match(r.body.error, /URL refused.*private/i, url);
        assert.equal(rx.requests.length, 0, `nothing reached the receiver via ${url}`);
        const log = await sreq('GET', '/api/v1/webhooks/deliveries/?limit=1', { key: s.key });
        assert.equal(log.body[0].status_code, null);
        assert.equal(log.body[0].success, false);
        assert.match(log.body[0].error, /URL refused/);
      }
    });
  });

  it('scoped keys get 403 SCOPED_KEY_FORBIDDEN on every webhook endpoint', async () => {
    const k = await req('POST', '/api/v1/keys/', { key: a.key, json: { name: 'scoped', is_full_access: false } });
    assert.equal(k.status, 201, k.text);
    const scoped = k.body.key as string;
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/v1/webhooks/'],
      ['POST', '/api/v1/webhooks/', { url: rx.url }],
      ['PATCH', '/api/v1/webhooks/', { is_active: false }],
      ['DELETE', '/api/v1/webhooks/'],
      ['POST', '/api/v1/webhooks/rotate-secret/'],
      ['POST', '/api/v1/webhooks/test/'],
      ['GET', '/api/v1/webhooks/deliveries/'],
      ['POST', '/api/v1/webhooks/deliveries/00000000-0000-4000-8000-000000000000/redeliver/'],
    ];
    for (const [method, p, json] of calls) {
      const r = await req(method, p, json === undefined ? { key: scoped } : { key: scoped, json });
      assertError(r, 403, 'SCOPED_KEY_FORBIDDEN');
    }
    const still = await req('GET', '/api/v1/webhooks/', { key: a.key });
    assert.deepEqual(still.body, { configured: true, url: rx.url, is_active: true });
  });

  it("tenant isolation: another organization sees only its own (empty) webhook and log, and cannot touch A's", async () => {
    assert.deepEqual((await req('GET', '/api/v1/webhooks/', { key: b.key })).body, { configured: false, url: null, is_active: false });
    const logB = await req('GET', '/api/v1/webhooks/deliveries/', { key: b.key });
    assert.equal(logB.status, 200);
    assert.deepEqual(logB.body, []);
    const logA = await req('GET', '/api/v1/webhooks/deliveries/', { key: a.key });
    assert.ok(logA.body.length > 0);
    assertError(await req('POST', `/api/v1/webhooks/deliveries/${logA.body[0].id}/redeliver/`, { key: b.key }), 404, 'DELIVERY_NOT_FOUND');
    assertError(await req('POST', '/api/v1/webhooks/deliveries/not-a-uuid/redeliver/', { key: a.key }), 404, 'DELIVERY_NOT_FOUND');
    const delB = await req('DELETE', '/api/v1/webhooks/', { key: b.key });
    assert.equal(delB.status, 200);
    assert.deepEqual(delB.body, { configured: false, deleted: false });
    assert.equal((await req('GET', '/api/v1/webhooks/', { key: a.key })).body.configured, true);
    const created = await req('POST', '/api/v1/webhooks/', { key: b.key, json: { url: `${rx.url}?b` } });
    assert.equal(created.status, 201);
    assert.notEqual(created.body.secret, secretA);
    assert.equal((await req('GET', '/api/v1/webhooks/', { key: a.key })).body.url, rx.url);
  });

  it('DELETE answers 200 {configured:false, deleted:true}; afterwards GET is empty and test gives 404', async () => {
    const r = await req('DELETE', '/api/v1/webhooks/', { key: a.key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { configured: false, deleted: true });
    assert.deepEqual((await req('GET', '/api/v1/webhooks/', { key: a.key })).body, { configured: false, url: null, is_active: false });
    assertError(await req('POST', '/api/v1/webhooks/test/', { key: a.key }), 404, 'WEBHOOK_NOT_CONFIGURED');
    assert.deepEqual((await req('DELETE', '/api/v1/webhooks/', { key: a.key })).body, { configured: false, deleted: false });
    // The log survives the webhook; redelivery needs a webhook.
    const log = await req('GET', '/api/v1/webhooks/deliveries/', { key: a.key });
    assert.ok(log.body.length > 0);
    assertError(
      await req('POST', `/api/v1/webhooks/deliveries/${log.body[0].id}/redeliver/`, { key: a.key }),
      404,
      'WEBHOOK_NOT_CONFIGURED',
    );
  });

  describe('receiver-side verification (as the specification tells receivers)', () => {
    it('accepts a fresh delivery, rejects a tampered body, and rejects a replay older than 5 minutes', async () => {
      const c = await createTenant(d, 'wh-replay');
      const created = await req('POST', '/api/v1/webhooks/', { key: c.key, json: { url: rx.url } });
      rx.secret = created.body.secret;
      rx.reset();
      assert.equal((await req('POST', '/api/v1/webhooks/test/', { key: c.key })).status, 200);
      const original = rx.requests[0]!;
      assert.ok(original.verdict.ok);
      const ts = Number(original.headers['x-service-timestamp']);
      assert.ok(Math.abs(ts - Date.now() / 1000) < 5, 'timestamp is current unix seconds');

      assert.equal(await rx.replay(original), 200, 'an immediate replay verifies (receivers dedupe on the event id)');
      assert.equal(
        await rx.replay(original, (b) => Buffer.from(b.toString().replace('webhook.test', 'webhook.tesT'))),
        401,
        'tampered body',
      );

      rx.now = () => (ts + TOLERANCE_SECONDS - 1) * 1000;
      assert.equal(await rx.replay(original), 200, 'just inside the 5-minute window');
      rx.now = () => (ts + TOLERANCE_SECONDS + 1) * 1000;
      assert.equal(await rx.replay(original), 401, 'replayed after 5 minutes');
      assert.match((rx.requests.at(-1)!.verdict as { reason: string }).reason, /too old/);
      rx.now = () => Date.now();

      const v = verifyWebhook(rx.secret, original.headers, original.rawBody, (ts + 301) * 1000);
      assert.deepEqual(v, { ok: false, reason: 'timestamp too old (301 s)' });
    });

    it('a sender whose clock is 6 minutes behind is rejected by the receiver', async () => {
      const late = await startTestDaemon({
        label: 'webhooks_late',
        env: { ALLOW_PRIVATE_URLS: 'true', CLOCK_OFFSET_MS: String(-6 * 60_000) },
      });
      try {
        const t = await createTenant(late, 'wh-late');
        const created = await http(late.url)('POST', '/api/v1/webhooks/', { key: t.key, json: { url: rx.url } });
        rx.secret = created.body.secret;
        const r = await http(late.url)('POST', '/api/v1/webhooks/test/', { key: t.key });
        assertError(r, 500, 'WEBHOOK_TEST_FAILED');
        assert.match(r.body.error, /HTTP 401.*too old/);
      } finally {
        await late.close();
      }
    });
  });
});
