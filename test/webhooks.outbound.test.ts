// Outbound HTTP of webhook deliveries (undici, pinned DNS): the request a receiver gets is framed
// with Content-Length, and IPv6 spellings of private IPv4 addresses are refused like the plain ones,
// at configuration, at delivery and for URL documents.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

describe('webhook outbound HTTP', () => {
  let d: TestDaemon; // ALLOW_PRIVATE_URLS=true: the loopback receiver is reachable
  let strict: TestDaemon;
  let rx: WebhookReceiver;
  let a: Tenant;
  let s: Tenant;
  let req: ReturnType<typeof http>;
  let sreq: ReturnType<typeof http>;

  before(async () => {
    [d, strict, rx] = await Promise.all([
      startTestDaemon({ label: 'wh_out', env: { ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000' } }),
      startTestDaemon({ label: 'wh_out_strict' }),
      startWebhookReceiver(),
    ]);
    req = http(d.url);
    sreq = http(strict.url);
    a = await createTenant(d, 'wh-out');
    s = await createTenant(strict, 'wh-out-strict');
    const created = await req('POST', '/api/v1/webhooks/', { key: a.key, json: { url: rx.url } });
    assert.equal(created.status, 201, created.text);
    rx.secret = created.body.secret;
  });
  after(async () => {
    await Promise.all([d?.close(), strict?.close(), rx?.close()]);
  });

  it('a delivery is sent with Content-Length equal to the body, not chunked', async () => {
    rx.reset();
    for (let i = 0; i < 2; i++) {
      const r = await req('POST', '/api/v1/webhooks/test/', { key: a.key });
      assert.equal(r.status, 200, r.text);
    }
    assert.equal(rx.requests.length, 2);
    for (const got of rx.requests) {
      assert.equal(got.verdict.ok, true, JSON.stringify(got.verdict));
      assert.equal(got.headers['content-length'], String(got.rawBody.length));
      assert.equal(got.headers['transfer-encoding'], undefined);
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['user-agent'], 'docsift-webhooks/1');
    }
  });

  const embedded = (port: number) => [
    `http://[::127.0.0.1]:${port}/hook`,
    `http://[::7f00:1]:${port}/hook`,
    `http://[0:0:0:0:0:0:7f00:1]:${port}/hook`,
    `http://[::ffff:7f00:1]:${port}/hook`,
    `http://[::ffff:0:7f00:1]:${port}/hook`,
    `http://[64:ff9b::7f00:1]:${port}/hook`,
    `http://[::a9fe:a9fe]/latest/meta-data/`,
  ];

  it('IPv6 spellings of loopback and metadata addresses are refused at configuration time', async () => {
    for (const url of embedded(rx.port)) {
      const r = await sreq('POST', '/api/v1/webhooks/', { key: s.key, json: { url } });
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.equal(r.body.code, 'VALIDATION_FAILED');
      assert.ok(r.body.fields?.url?.[0], url);
    }
    assert.equal((await sreq('GET', '/api/v1/webhooks/', { key: s.key })).body.configured, false);
  });

  it('and at delivery time, when such a URL is already stored: nothing is sent', async () => {
    const t = await createTenant(strict, 'wh-out-stored');
    const created = await sreq('POST', '/api/v1/webhooks/', { key: t.key, json: { url: 'https://93.184.216.34/hook' } });
    assert.equal(created.status, 201, created.text);
    rx.reset();
    for (const url of embedded(rx.port)) {
      await strict.deps.sql`update webhooks set url = ${url} where organization_id = ${t.orgId}`;
      const r = await sreq('POST', '/api/v1/webhooks/test/', { key: t.key });
      assert.equal(r.status, 500, r.text);
      assert.equal(r.body.code, 'WEBHOOK_TEST_FAILED');
      assert.match(r.body.error, /URL refused/, url);
    }
    assert.equal(rx.requests.length, 0, 'nothing reached the receiver');
  });

  it('URL documents with such hosts are refused at upload with 400', async () => {
    const coll = (await sreq('POST', '/api/v1/collections/', { key: s.key, json: { name: 'Outbound' } })).body.uuid;
    for (const url of embedded(rx.port)) {
      const r = await sreq('POST', `/api/v1/collections/${coll}/documents/`, { key: s.key, json: { source_type: 'url', url } });
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.equal(r.body.code, 'VALIDATION_FAILED');
    }
  });
});
