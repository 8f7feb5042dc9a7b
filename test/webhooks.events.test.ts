import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { startWebhookReceiver, subscribeReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

// Events exist to be delivered to the organization's webhook, and only deliveries read them: an
// organization with no active webhook has none stored (a bulk upload wrote a never-read row per
// document); one with an active webhook has each event stored once and delivered.

describe('webhooks: which events are stored', () => {
  let d: TestDaemon;
  let ollama: FakeOllama;
  let rx: WebhookReceiver;
  let quiet: Tenant;
  let hooked: Tenant;
  let req: ReturnType<typeof http>;
  const colls = new Map<Tenant, string>();

  before(async () => {
    ollama = await startFakeOllama();
    rx = await startWebhookReceiver();
    d = await startTestDaemon({
      label: 'events_stored',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, ALLOW_PRIVATE_URLS: 'true' },
    });
    req = http(d.url);
    quiet = await createTenant(d, 'events-quiet');
    hooked = await createTenant(d, 'events-hooked');
    for (const t of [quiet, hooked]) colls.set(t, (await makeCollection(req, t.key, 'Events')).uuid);
    await subscribeReceiver(req, hooked.key, rx);
  });
  after(async () => {
    await d?.close();
    await rx?.close();
    await ollama?.close();
  });

  const index = async (t: Tenant, content: string) => {
    const doc = await addText(req, t.key, colls.get(t)!, 'Note', content);
    await waitSettled(req, t.key, [doc.uuid]);
    return doc.uuid as string;
  };
  const stored = async (doc: string) =>
    (
      await d.deps.sql<{ type: string; organization_id: string }[]>`
        select type, organization_id from events where payload -> 'data' ->> 'uuid' = ${doc}`
    ).map((e) => ({ ...e }));

  it('no webhook: the document is indexed, no event is stored and nothing is sent', async () => {
    const doc = await index(quiet, 'A lantern of copper and glass.');
    assert.deepEqual(await stored(doc), []);
    assert.equal(rx.requests.filter((r) => r.body?.data?.uuid === doc).length, 0);
    const log = await req('GET', '/api/v1/webhooks/deliveries/', { key: quiet.key });
    assert.equal(log.status, 200, log.text);
    assert.deepEqual(log.body, []);
  });

  it('an active webhook: the event is stored once and delivered, to its own organization only', async () => {
    const doc = await index(hooked, 'A lantern of brass and mica.');
    assert.deepEqual(await stored(doc), [{ type: 'document.indexed', organization_id: hooked.orgId }]);
    const [got] = await rx.waitFor((reqs) => reqs.some((r) => r.body?.data?.uuid === doc));
    assert.ok(got!.verdict.ok);
    // The log row commits just after the receiver answers.
    for (let tries = 0; ; tries++) {
      const own = await req('GET', '/api/v1/webhooks/deliveries/', { key: hooked.key });
      if (own.body.some((r: { event_type: string; success: boolean }) => r.event_type === 'document.indexed' && r.success)) break;
      assert.ok(tries < 100, `no successful delivery logged: ${own.text}`);
      await new Promise((res) => setTimeout(res, 50));
    }
    const quietLog = await req('GET', '/api/v1/webhooks/deliveries/', { key: quiet.key });
    assert.deepEqual(quietLog.body, [], 'another organization sees no deliveries');
  });

  it('an inactive webhook: nothing stored while inactive; reactivated, events are stored and sent again', async () => {
    assert.equal((await req('PATCH', '/api/v1/webhooks/', { key: hooked.key, json: { is_active: false } })).status, 200);
    const off = await index(hooked, 'A lantern left unlit.');
    assert.deepEqual(await stored(off), []);
    assert.equal((await req('PATCH', '/api/v1/webhooks/', { key: hooked.key, json: { is_active: true } })).status, 200);
    const on = await index(hooked, 'A lantern lit again.');
    assert.equal((await stored(on)).length, 1);
    await rx.waitFor((reqs) => reqs.some((r) => r.body?.data?.uuid === on));
    assert.equal(rx.requests.filter((r) => r.body?.data?.uuid === off).length, 0);
  });
});
