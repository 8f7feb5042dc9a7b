import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { webhookEventSchema } from '../daemon/src/webhooks/event-schema.js';
import { emitEvent, type DocumentEventData } from '../daemon/src/webhooks/events.js';
import { BAD_FILES, samplePath } from './fixtures/samples.js';
import { EVENT_DATA_FIELDS } from './helpers/document-fields.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import {
  startWebhookReceiver,
  subscribeReceiver,
  verifyWebhook,
  type Received,
  type Reply,
  type WebhookReceiver,
} from './helpers/webhook-receiver.js';

// Delivery through the real worker to a real receiver on loopback. The retry base is 50 ms, so the
// schedule is 50, 100, 200, 400, 800 ms (±20 %); graphile-worker picks up future jobs on its 1 s poll.

const BASE_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Scenarios use separate tenants and receivers, so they run concurrently to keep the file fast.
describe('webhook delivery', { concurrency: true }, () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  const receivers: WebhookReceiver[] = [];

  before(async () => {
    d = await startTestDaemon({
      label: 'webhooks_dlv',
      worker: true,
      env: { ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_TIMEOUT_MS: '500', WORKER_CONCURRENCY: '4' },
    });
    req = http(d.url);
  });
  after(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await d?.close();
  });

  /** A tenant with its own receiver and webhook; `script` answers the n-th request (after signature checks). */
  async function setup(label: string, script?: (n: number) => Reply) {
    const t = await createTenant(d, label);
    const rx = await startWebhookReceiver();
    receivers.push(rx);
    await subscribeReceiver(req, t.key, rx);
    if (script) rx.respond = ({ n, verdict }) => (verdict.ok ? script(n) : { status: 401, body: verdict.reason });
    return { t, rx };
  }

  /** A synthetic document event through the daemon's own emitEvent (the call processing makes), for delivery-path tests. */
  async function emitStored(t: Tenant, type: 'document.indexed' | 'document.failed' = 'document.indexed'): Promise<string | undefined> {
    const data: DocumentEventData = {
      uuid: randomUUID(),
      status: type === 'document.indexed' ? 'indexed' : 'failed',
      title: 'Synthetic',
      source_type: 'txt',
      collection_uuid: randomUUID(),
      collection_name: 'Synthetic',
      chunks_count: type === 'document.indexed' ? 1 : 0,
      tags: 'a,b',
      error_message: type === 'document.indexed' ? null : 'boom',
      original_filename: 'synthetic.txt',
      file_size: 10,
    };
    return d.deps.sql.begin((tx) => emitEvent(tx, t.orgId, type, data, d.deps.clock.now()));
  }
  async function emit(t: Tenant, type: 'document.indexed' | 'document.failed' = 'document.indexed'): Promise<string> {
    const id = await emitStored(t, type);
    assert.ok(id, 'the event is stored: the organization has an active webhook');
    return id;
  }

  async function log(t: Tenant, query = '') {
    const r = await req('GET', `/api/v1/webhooks/deliveries/${query}`, { key: t.key });
    assert.equal(r.status, 200, r.text);
    return r.body as any[];
  }

  /** An attempt is logged after the receiver has answered: wait for the rows, not just the requests. */
  async function waitForLog(t: Tenant, n: number): Promise<any[]> {
    for (let i = 0; ; i++) {
      const rows = await log(t);
      if (rows.length >= n) return rows;
      assert.ok(i < 200, `only ${rows.length} of ${n} delivery attempts were logged`);
      await sleep(25);
    }
  }

  /**
   * Waits until nothing more can reach the tenant's receiver: no job is left that could still run
   * and process one of its documents or deliver one of its events. A retry re-queues under the
   * event's job key, so that key disappears only after the last attempt (and the delivery log row
   * is written in the same transaction as the retry is queued). What follows can then assert that
   * nothing else arrived, without sleeping and hoping the worker was done.
   */
  async function settled(t: Tenant): Promise<void> {
    for (let i = 0; ; i++) {
      const [row] = await d.deps.sql<{ n: number }[]>`
        select count(*)::int as n from graphile_worker.jobs j
         where (j.attempts < j.max_attempts or j.locked_at is not null)
           and (j.key in (select 'process:' || x.id from documents x join collections c on c.id = x.collection_id where c.organization_id = ${t.orgId})
                or (j.key like 'webhook:%' and split_part(j.key, ':', 3) in (select e.id::text from events e where e.organization_id = ${t.orgId})))`;
      if (!row!.n) return;
      assert.ok(i < 800, `${row!.n} job(s) of the tenant still pending after 20 s`);
      await sleep(25);
    }
  }

  const pendingJobs = (eventId: string) => d.deps.sql`select id from graphile_worker.jobs where key like ${'webhook:%:' + eventId}`;

  function assertSameEvent(reqs: Received[], eventId: string) {
    for (const r of reqs) {
      assert.ok(r.verdict.ok, JSON.stringify(r.verdict));
      assert.equal(r.headers['x-service-event-id'], eventId);
      assert.equal(r.body.id, eventId);
      assert.ok(r.rawBody.equals(reqs[0]!.rawBody), 'the body is byte-identical on every attempt');
    }
    assert.deepEqual(
      reqs.map((r) => r.headers['x-service-attempt']),
      reqs.map((_, i) => String(i + 1)),
    );
  }

  it('document.indexed and document.failed from real uploads carry the spec payload, signed', async () => {
    const { t, rx } = await setup('dlv-docs');
    const c = await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Hooked' } });
    assert.equal(c.status, 201, c.text);
    const form = new FormData();
    form.append('tags', 'Alpha, beta');
    form.append('files', new Blob([await readFile(samplePath('sample.txt'))], { type: 'text/plain' }), 'sample.txt');
    form.append('files', new Blob([await readFile(samplePath(BAD_FILES.corruptPdf))], { type: 'application/pdf' }), BAD_FILES.corruptPdf);
    const up = await req('POST', `/api/v1/collections/${c.body.uuid}/documents/`, { key: t.key, body: form });
    assert.equal(up.status, 201, up.text);
    assert.equal(up.body.total_uploaded, 2, up.text);

    await rx.waitFor((reqs) => reqs.length >= 2, 30_000);
    await settled(t);
    assert.equal(rx.requests.length, 2, 'one delivery per event');
    for (const r of rx.requests) {
      assert.ok(r.verdict.ok, JSON.stringify(r.verdict));
      assert.deepEqual(Object.keys(r.body).sort(), ['data', 'event', 'id', 'timestamp']);
      assert.deepEqual(Object.keys(r.body.data).sort(), EVENT_DATA_FIELDS);
      // The schema the OpenAPI document publishes reads the delivered body whole, unknown keys stripped.
      assert.deepEqual(webhookEventSchema('').parse(r.body), r.body);
      assert.equal(r.headers['x-service-event-id'], r.body.id);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['user-agent'], 'docsift-webhooks/1');
      assert.match(r.headers['x-service-signature'] as string, /^sha256=[0-9a-f]{64}$/);
      assert.ok(!Number.isNaN(Date.parse(r.body.timestamp)));
      const doc = (await req('GET', `/api/v1/documents/${r.body.data.uuid}/`, { key: t.key })).body;
      const data = r.body.data;
      assert.equal(data.status, doc.status);
      assert.equal(data.title, doc.title);
      assert.equal(data.source_type, doc.source_type);
      assert.equal(data.collection_uuid, c.body.uuid);
      assert.equal(data.collection_name, 'Hooked');
      assert.equal(data.chunks_count, doc.chunks_count);
      assert.equal(data.tags, doc.tags.join(','));
      assert.equal(typeof data.tags, 'string');
      assert.equal(data.original_filename, doc.original_filename);
      assert.equal(data.file_size, doc.file_size);
      const [ev] = await d.deps.sql<{ id: string }[]>`select id from events where id = ${r.body.id} and organization_id = ${t.orgId}`;
      assert.ok(ev, 'id is the stored event id');
    }
    const indexed = rx.requests.find((r) => r.body.event === 'document.indexed')!;
    const failed = rx.requests.find((r) => r.body.event === 'document.failed')!;
    assert.ok(indexed && failed);
    assert.equal(indexed.body.data.status, 'indexed');
    assert.equal(indexed.body.data.error_message, null);
    assert.ok(indexed.body.data.chunks_count >= 1);
    assert.equal(indexed.body.data.tags, 'Alpha,beta');
    assert.equal(indexed.body.data.original_filename, 'sample.txt');
    assert.equal(failed.body.data.status, 'failed');
    assert.equal(failed.body.data.chunks_count, 0);
    assert.equal(failed.body.data.original_filename, BAD_FILES.corruptPdf);
    const failedDoc = (await req('GET', `/api/v1/documents/${failed.body.data.uuid}/`, { key: t.key })).body;
    assert.equal(failed.body.data.error_message, failedDoc.error_message);
    assert.ok(failedDoc.error_message.length > 0);
    const rows = await log(t);
    assert.equal(rows.length, 2);
    assert.ok(
      rows.every((x) => x.success && x.status_code === 200 && x.attempt === 1 && x.trigger === 'automatic' && x.next_retry_at === null),
    );
  });

  it('retries 5xx, timeouts and 408 with backoff, then succeeds; the event id and body repeat', async () => {
    const script: Reply[] = [{ status: 500 }, { status: 200, delayMs: 900 }, { status: 408 }, { status: 204 }];
    const { t, rx } = await setup('dlv-retry', (n) => script[n - 1] ?? { status: 200 });
    const eventId = await emit(t);
    await rx.waitFor((reqs) => reqs.length >= 4);
    await settled(t);
    assert.equal(rx.requests.length, 4);
    assertSameEvent(rx.requests, eventId);
    const rows = (await log(t, `?event_id=${eventId}`)).reverse();
    assert.deepEqual(
      rows.map((r) => r.attempt),
      [1, 2, 3, 4],
    );
    assert.deepEqual(
      rows.map((r) => r.status_code),
      [500, null, 408, 204],
    );
    assert.deepEqual(
      rows.map((r) => r.success),
      [false, false, false, true],
    );
    assert.match(rows[0].error, /HTTP 500/);
    assert.match(rows[1].error, /Timed out/);
    assert.ok(rows.slice(0, 3).every((r) => r.next_retry_at !== null));
    assert.equal(rows[3].next_retry_at, null);
    assert.ok(rows[1].duration_ms >= 450 && rows[1].duration_ms < 900, `timeout at ~500 ms, got ${rows[1].duration_ms}`);
    assert.equal((await pendingJobs(eventId)).length, 0);
  });

  it('gives up after 5 retries (6 attempts), on the documented exponential schedule with jitter', async () => {
    const { t, rx } = await setup('dlv-giveup', () => ({ status: 503 }));
    const eventId = await emit(t);
    await rx.waitFor((reqs) => reqs.length >= 1);
    assert.equal((await pendingJobs(eventId)).length, 1, 'one job per event: the retry replaces it under the same key');
    await rx.waitFor((reqs) => reqs.length >= 6, 20_000);
    await settled(t);
    assert.equal(rx.requests.length, 6, 'no seventh attempt');
    assertSameEvent(rx.requests, eventId);
    const rows = (await log(t)).reverse();
    assert.deepEqual(
      rows.map((r) => r.attempt),
      [1, 2, 3, 4, 5, 6],
    );
    assert.ok(rows.every((r) => r.status_code === 503 && !r.success));
    assert.equal(rows[5].next_retry_at, null);
    rows.slice(0, 5).forEach((r, i) => {
      const delay = Date.parse(r.next_retry_at) - Date.parse(r.created_at);
      const nominal = BASE_MS * 2 ** i;
      assert.ok(delay >= nominal * 0.8 - 1 && delay <= nominal * 1.2 + 1, `retry ${i + 1}: ${delay} ms vs ${nominal} ms ±20%`);
    });
    for (let i = 1; i < 6; i++) assert.ok(rx.requests[i]!.at - rx.requests[i - 1]!.at >= BASE_MS * 2 ** (i - 1) * 0.8 - 5);
    assert.equal((await pendingJobs(eventId)).length, 0);
  });

  it('4xx other than 408/429 is final, and so is a redirect', async () => {
    for (const status of [400, 410, 302]) {
      const { t, rx } = await setup(
        `dlv-final-${status}`,
        (): Reply => (status === 302 ? { status, headers: { location: 'http://127.0.0.1:1/' } } : { status }),
      );
      const eventId = await emit(t, 'document.failed');
      await rx.waitFor((reqs) => reqs.length >= 1);
      await settled(t);
      assert.equal(rx.requests.length, 1, `HTTP ${status}: one attempt only`);
      assert.equal(rx.requests[0]!.body.data.error_message, 'boom');
      const rows = await log(t);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].status_code, status);
      assert.equal(rows[0].next_retry_at, null);
      assert.equal((await pendingJobs(eventId)).length, 0);
    }
  });

  it('429 honours Retry-After; each attempt is signed afresh (new timestamp, current secret)', async () => {
    const { t, rx } = await setup('dlv-429', (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 }));
    const eventId = await emit(t);
    await rx.waitFor((reqs) => reqs.length >= 1, 10_000);
    // Rotate while the retry waits: the retry must be signed with the new secret.
    const oldSecret = rx.secret;
    const rotated = await req('POST', '/api/v1/webhooks/rotate-secret/', { key: t.key });
    assert.equal(rotated.status, 200);
    rx.secret = rotated.body.secret;
    await rx.waitFor((reqs) => reqs.length >= 2, 10_000);
    const [first, second] = [rx.requests[0]!, rx.requests[1]!];
    const gap = second.at - first.at;
    assert.ok(gap >= 1900, `second attempt ${gap} ms after the first; Retry-After asked for 2 s (backoff alone would be ~50 ms)`);
    assertSameEvent(rx.requests, eventId);
    assert.notEqual(second.headers['x-service-timestamp'], first.headers['x-service-timestamp']);
    assert.notEqual(second.headers['x-service-signature'], first.headers['x-service-signature']);
    assert.equal(verifyWebhook(oldSecret, second.headers, second.rawBody).ok, false);
    const rows = (await waitForLog(t, 2)).reverse();
    assert.equal(rows[0].status_code, 429);
    assert.ok(Date.parse(rows[0].next_retry_at) - Date.parse(rows[0].created_at) >= 2000);
    assert.equal(rows[1].success, true);
  });

  it('connection errors are retried, and a retry goes to the current URL', async () => {
    const { t, rx } = await setup('dlv-refused');
    const closed = await startWebhookReceiver();
    const deadUrl = closed.url;
    await closed.close();
    assert.equal((await req('POST', '/api/v1/webhooks/', { key: t.key, json: { url: deadUrl } })).status, 200);
    const eventId = await emit(t);
    const end = Date.now() + 10_000;
    let rows: any[] = [];
    while (!(rows = await log(t)).length && Date.now() < end) await sleep(25);
    assert.match(rows[0].error, /Connection refused/);
    assert.equal(rows[0].status_code, null);
    assert.ok(rows[0].next_retry_at);
    assert.equal((await req('POST', '/api/v1/webhooks/', { key: t.key, json: { url: rx.url } })).status, 200);
    await rx.waitFor((reqs) => reqs.length >= 1, 10_000);
    assert.equal(rx.requests[0]!.body.id, eventId);
  });

  it('nothing is delivered after DELETE: pending retries stop, new events are not queued, a new webhook gets no old retries', async () => {
    const { t, rx } = await setup('dlv-delete', () => ({ status: 500 }));
    const eventId = await emit(t);
    await rx.waitFor((reqs) => reqs.length >= 1);
    const del = await req('DELETE', '/api/v1/webhooks/', { key: t.key });
    assert.deepEqual(del.body, { configured: false, deleted: true });
    const seen = rx.requests.length;
    assert.equal(await emitStored(t), undefined, 'no event (and no job) after DELETE');
    // A new webhook (new id) at the same URL must not receive the old event's retries.
    const again = await req('POST', '/api/v1/webhooks/', { key: t.key, json: { url: rx.url } });
    assert.equal(again.status, 201);
    await settled(t);
    assert.equal(rx.requests.length, seen, 'no request after DELETE answered');
    assert.ok(rx.requests.every((r) => r.body.id === eventId));
    assert.equal((await pendingJobs(eventId)).length, 0);
  });

  it('while inactive, events are not queued and pending retries are dropped; reactivated, delivery resumes', async () => {
    let fail = true;
    const { t, rx } = await setup('dlv-inactive', () => ({ status: fail ? 500 : 200 }));
    const first = await emit(t);
    await rx.waitFor((reqs) => reqs.length >= 1);
    assert.equal((await req('PATCH', '/api/v1/webhooks/', { key: t.key, json: { is_active: false } })).status, 200);
    fail = false;
    assert.equal(await emitStored(t), undefined, 'no event is stored while the webhook is inactive');
    assert.equal((await d.deps.sql`select 1 from events where organization_id = ${t.orgId}`).length, 1, 'only the first event');
    await settled(t);
    assert.equal(rx.requests.length, 1, 'the pending retry was dropped');
    assert.equal((await pendingJobs(first)).length, 0);
    assert.equal((await req('PATCH', '/api/v1/webhooks/', { key: t.key, json: { is_active: true } })).status, 200);
    const resumed = await emit(t);
    await rx.waitFor((reqs) => reqs.length >= 2);
    assert.equal(rx.requests[1]!.body.id, resumed);
  });

  it('the delivery log pages newest first with Link rel=next; redeliver sends the same event again as a manual attempt', async () => {
    const { t, rx } = await setup('dlv-log');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await emit(t));
      await rx.waitFor((reqs) => reqs.length >= i + 1);
      await waitForLog(t, i + 1);
    }
    const p1 = await req('GET', '/api/v1/webhooks/deliveries/?limit=2', { key: t.key });
    assert.equal(p1.status, 200);
    assert.deepEqual(
      p1.body.map((r: any) => r.event_id),
      [ids[2], ids[1]],
    );
    assert.deepEqual(Object.keys(p1.body[0]).sort(), [
      'attempt',
      'created_at',
      'duration_ms',
      'error',
      'event_id',
      'event_type',
      'id',
      'next_retry_at',
      'status_code',
      'success',
      'trigger',
      'url',
    ]);
    const link = p1.headers.get('link') ?? '';
    const m = /^<([^>]+)>; rel="next"$/.exec(link);
    assert.ok(m, link);
    const p2 = await req('GET', m[1]!, { key: t.key });
    assert.deepEqual(
      p2.body.map((r: any) => r.event_id),
      [ids[0]],
    );
    assert.equal(p2.headers.get('link'), null);
    assert.equal((await req('GET', '/api/v1/webhooks/deliveries/?cursor=garbage', { key: t.key })).status, 400);

    const oldest = p2.body[0];
    const again = await req('POST', `/api/v1/webhooks/deliveries/${oldest.id}/redeliver/`, { key: t.key });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.event_id, ids[0]);
    assert.equal(again.body.trigger, 'manual');
    assert.equal(again.body.attempt, 2);
    assert.equal(again.body.success, true);
    assert.equal(again.body.next_retry_at, null);
    const [orig, redo] = [rx.requests.find((r) => r.body.id === ids[0])!, rx.requests.at(-1)!];
    assert.equal(redo.headers['x-service-event-id'], ids[0]);
    assert.ok(redo.rawBody.equals(orig.rawBody), 'same event body');
    assert.equal((await log(t))[0].id, again.body.id, 'newest first');

    rx.respond = () => ({ status: 500 });
    const failed = await req('POST', `/api/v1/webhooks/deliveries/${oldest.id}/redeliver/`, { key: t.key });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.success, false);
    assert.equal(failed.body.status_code, 500);
    assert.equal(failed.body.next_retry_at, null, 'manual redelivery does not schedule retries');
    const count = rx.requests.length;
    await settled(t);
    assert.equal(rx.requests.length, count);
    const unknown = await req('POST', `/api/v1/webhooks/deliveries/${randomUUID()}/redeliver/`, { key: t.key });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'DELIVERY_NOT_FOUND');
  });
});
