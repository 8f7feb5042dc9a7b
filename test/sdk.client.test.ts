// @docsift/sdk against a real daemon (with its worker): every resource, typed errors, uploads,
// waiting, pagination, downloads, search, keys and webhooks with a verifying receiver.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  ApiError,
  AuthenticationError,
  createClient,
  DocumentProcessingError,
  filesInDirectory,
  NotFoundError,
  PermissionError,
  ValidationError,
  verifyWebhook,
  type Collection,
  type DocsiftClient,
  type UploadProgress,
  type WebhookEvent,
} from '../sdk/src/node.js';
import { SAMPLES_DIR, samplePath } from './fixtures/samples.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('@docsift/sdk against a real daemon', () => {
  let d: TestDaemon;
  let t: Tenant;
  let client: DocsiftClient;
  let coll: Collection;

  before(async () => {
    d = await startTestDaemon({ label: 'sdk_client', worker: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
    t = await createTenant(d, 'sdk');
    client = createClient({ baseUrl: d.url, apiKey: t.key });
    coll = await client.collections.create({ name: 'SDK samples', description: 'mixed files' });
  });
  after(() => d?.close());

  it('collections: typed data and typed errors with code, fields and request id', async () => {
    assert.equal(coll.slug, 'sdk-samples');
    assert.equal((await client.collections.get(coll.uuid)).name, 'SDK samples');
    assert.equal((await client.collections.update(coll.uuid, { description: 'updated' })).description, 'updated');
    assert.deepEqual(
      (await client.collections.list()).map((c) => c.uuid),
      [coll.uuid],
    );
    assert.equal((await client.collections.find('SDK samples'))?.uuid, coll.uuid);

    const missing = await client.collections.get('3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f').catch((e: unknown) => e);
    assert.ok(
      missing instanceof NotFoundError && missing instanceof ApiError,
      'missing instanceof NotFoundError && missing instanceof ApiError',
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'COLLECTION_NOT_FOUND');
    assert.match(missing.requestId ?? '', /\S/);

    const invalid = await client.collections.create({ name: '' }).catch((e: unknown) => e);
    assert.ok(invalid instanceof ValidationError, 'invalid instanceof ValidationError');
    assert.equal(invalid.code, 'VALIDATION_FAILED');
    assert.ok(invalid.fields?.name?.length, 'invalid.fields?.name?.length');

    const anon = await createClient({ baseUrl: d.url, apiKey: 'svc_' + 'z'.repeat(40) })
      .collections.list()
      .catch((e: unknown) => e);
    assert.ok(anon instanceof AuthenticationError, 'anon instanceof AuthenticationError');
    assert.equal(anon.code, 'INVALID_API_KEY');
  });

  it('uploadMany batches a folder of mixed files with progress; waitForSettled reports indexed and failed', async () => {
    const files = await filesInDirectory(SAMPLES_DIR);
    const progress: UploadProgress[] = [];
    const r = await client.documents.uploadMany(coll.uuid, files, {
      batchSize: 6,
      concurrency: 2,
      tags: ['samples', 'sdk'],
      onProgress: (p) => progress.push(p),
    });
    assert.equal(r.results.length, files.length);
    assert.deepEqual(
      r.results.map((x) => x.index),
      files.map((_, i) => i),
      'one outcome per input, in order',
    );
    assert.deepEqual(r.skipped.map((s) => s.filename).sort(), ['fake.docx', 'fake.pdf', 'image.png']);
    assert.ok(
      r.skipped.every((s) => s.reason.length > 0),
      'r.skipped.every((s) => s.reason.length > 0)',
    );
    assert.equal(r.failed.length, 0);
    assert.equal(r.uploaded.length, files.length - 3);
    assert.ok(
      r.uploaded.every((u) => u.status === 'pending' && u.tags.join() === 'samples,sdk'),
      "r.uploaded.every((u) => u.status === 'pending' && u.tags.join() === 'samples,sdk')",
    );
    // Progress starts at zero, only grows, and ends complete.
    assert.equal(progress[0]!.filesDone, 0);
    for (let i = 1; i < progress.length; i++)
      assert.ok(progress[i]!.bytesDone >= progress[i - 1]!.bytesDone, 'progress[i]!.bytesDone >= progress[i - 1]!.bytesDone');
    const last = progress.at(-1)!;
    assert.deepEqual(
      [last.filesDone, last.filesTotal, last.uploaded, last.skipped, last.failed, last.bytesDone === last.bytesTotal],
      [files.length, files.length, files.length - 3, 3, 0, true],
    );

    const settled = await client.documents.waitForSettled(
      r.uploaded.map((u) => u.uuid),
      { timeoutMs: 60_000 },
    );
    assert.equal(settled.timedOut, false);
    const failedNames = settled.failed.map((f) => r.uploaded.find((u) => u.uuid === f.uuid)!.original_filename).sort();
    assert.deepEqual(failedNames, ['corrupt.pdf', 'empty.txt', 'encrypted.pdf']);
    assert.ok(
      settled.failed.every((f) => (f.error_message ?? '').length > 0),
      "settled.failed.every((f) => (f.error_message ?? '').length > 0)",
    );
    assert.equal(settled.indexed.length, r.uploaded.length - 3);

    const emptyDoc = r.uploaded.find((u) => u.original_filename === 'empty.txt')!;
    const rejection = await client.documents.waitForIndexed(emptyDoc.uuid, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    assert.ok(rejection instanceof DocumentProcessingError, 'rejection instanceof DocumentProcessingError');
    assert.equal(rejection.failed[0]!.uuid, emptyDoc.uuid);
    assert.match(rejection.message, new RegExp(rejection.failed[0]!.error_message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });

  it('single uploads from a path, a Blob and bytes; waitForIndexed resolves with the indexed detail', async () => {
    const fromPath = await client.documents.upload(coll.uuid, samplePath('sample.md'), { title: 'From a path', tags: 'one,two' });
    assert.equal(fromPath.title, 'From a path');
    assert.deepEqual(fromPath.tags, ['one', 'two']);
    const blob = new File([await readFile(samplePath('sample.txt'))], 'blob.txt', { type: 'text/plain' });
    const fromBlob = await client.documents.upload(coll.uuid, blob);
    assert.equal(fromBlob.original_filename, 'blob.txt');
    const fromBytes = await client.documents.upload(coll.uuid, {
      name: 'bytes.md',
      data: '# Bytes\n\nThe zephyrlatch phrase only lives here.',
    });
    assert.equal(fromBytes.source_type, 'md');

    const done = await client.documents.waitForIndexed(fromBytes.uuid, { timeoutMs: 30_000 });
    assert.equal(done.status, 'indexed');
    assert.match(done.content_text, /zephyrlatch/);
    const many = await client.documents.waitForIndexed([fromPath.uuid, fromBlob.uuid], { timeoutMs: 30_000 });
    assert.deepEqual(
      many.map((m) => [m.uuid, m.status]),
      [
        [fromPath.uuid, 'indexed'],
        [fromBlob.uuid, 'indexed'],
      ],
    );

    const refused = await client.documents
      .upload(coll.uuid, { name: 'x.png', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof ValidationError, 'refused instanceof ValidationError');
    assert.equal(refused.code, 'UNSUPPORTED_FILE_TYPE');
  });

  it('lists paginate through Link/X-Next-Cursor; await gives one page, for-await every item', async () => {
    const first = await client.documents.list({ collection: coll.slug, limit: 4 });
    assert.equal(first.data.length, 4);
    assert.ok(first.hasNextPage() && first.nextCursor, 'first.hasNextPage() && first.nextCursor');
    const all: string[] = [];
    for await (const doc of client.documents.list({ collection: coll.slug, limit: 4 })) all.push(doc.uuid);
    const total = (await client.collections.get(coll.uuid)).document_count;
    assert.equal(all.length, total);
    assert.equal(new Set(all).size, total);
    const tagged = await client.documents.byTag('sdk');
    assert.equal(tagged.count, 18);
  });

  it('search finds an uploaded phrase; downloadUrl/download return the original bytes; replace and delete', async () => {
    const s = await client.search({ query: 'kestrelmarble', collection: coll.slug, limit: 3 });
    assert.equal(s.query, 'kestrelmarble');
    assert.ok(s.count >= 1, 's.count >= 1');
    assert.equal(s.results[0]!.collection_slug, coll.slug);
    assert.match(s.results[0]!.content, /kestrelmarble/);
    const plain = await client.search('lilacorbit');
    assert.ok(
      plain.results.some((x) => /lilacorbit/.test(x.content)),
      'plain.results.some((x) => /lilacorbit/.test(x.content))',
    );

    const doc = (await client.documents.list({ collection: coll.slug, limit: 100 }).toArray()).find(
      (x) => x.original_filename === 'sample.pdf',
    )!;
    const url = await client.documents.downloadUrl(doc.uuid);
    assert.ok(url.startsWith(d.url), 'url.startsWith(d.url)');
    const res = await client.documents.download(doc.uuid);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), await readFile(samplePath('sample.pdf')));

    const replaced = await client.documents.replace(doc.uuid, samplePath('sample.txt'), { title: 'Now text' });
    assert.equal(replaced.uuid, doc.uuid);
    assert.equal(replaced.status, 'pending');
    assert.equal((await client.documents.waitForIndexed(doc.uuid, { timeoutMs: 30_000 })).title, 'Now text');
    await client.documents.delete(doc.uuid);
    await assert.rejects(client.documents.get(doc.uuid), NotFoundError);
  });

  it('keys: create scoped, grant write, rotate (old secret dies), expire, revoke; permission errors are typed', async () => {
    const scoped = await client.keys.create({ name: 'sdk-scoped', collections: [coll.slug], expires_in: '30d' });
    assert.match(scoped.key, /^svc_[A-Za-z0-9]{40}$/);
    assert.equal(scoped.is_full_access, false);
    assert.deepEqual(await client.keys.grants(scoped.uuid), [{ collection: coll.slug, permission: 'read' }]);
    const scopedClient = createClient({ baseUrl: d.url, apiKey: scoped.key });
    const denied = await scopedClient.documents.upload(coll.uuid, { name: 'n.md', data: '# no' }).catch((e: unknown) => e);
    assert.ok(denied instanceof PermissionError, 'denied instanceof PermissionError');
    assert.equal(denied.code, 'WRITE_ACCESS_REQUIRED');

    assert.deepEqual(await client.keys.grant(scoped.uuid, { collection: coll.slug, permission: 'write' }), {
      collection: coll.slug,
      permission: 'write',
    });
    assert.equal((await scopedClient.documents.upload(coll.uuid, { name: 'w.md', data: '# written' })).status, 'pending');

    const rotated = await client.keys.rotate(scoped.uuid);
    assert.notEqual(rotated.key, scoped.key);
    assert.equal(rotated.name, 'sdk-scoped');
    await assert.rejects(scopedClient.collections.list(), (e: unknown) => e instanceof AuthenticationError && e.code === 'INVALID_API_KEY');
    const newClient = createClient({ baseUrl: d.url, apiKey: rotated.key });
    assert.equal((await newClient.keys.current()).uuid, rotated.uuid);
    assert.deepEqual(await client.keys.grants(rotated.uuid), [{ collection: coll.slug, permission: 'write' }]);

    assert.equal((await client.keys.update(rotated.uuid, { expires_in: 'never' })).expires_at, null);
    await client.keys.ungrant(rotated.uuid, coll.slug);
    assert.deepEqual(await client.keys.grants(rotated.uuid), []);
    assert.equal((await client.keys.revoke(rotated.uuid)).is_active, false);
    assert.ok(
      (await client.keys.list()).some((k) => k.uuid === rotated.uuid && !k.is_active),
      '(await client.keys.list()).some((k) => k.uuid === rotated.uuid && !k.is_active)',
    );
  });

  it('usage: totals, daily series, per-key breakdown and the request log across pages; billing plan and invoices', async () => {
    const me = await client.keys.current();
    // The request log is written in batches, in request order, about once a second. Once it holds one
    // of these usage reads, every request before it (the tests above) is stored too. Counting rows
    // instead raced: earlier batches could already pass a count while the search sat in the buffer.
    const caughtUp = (u: typeof usage) => u.recent.items.some((e) => e.endpoint === '/api/v1/keys/usage');
    let usage = await client.usage.get({ days: 7, recent_limit: 5 });
    for (let i = 0; i < 60 && !caughtUp(usage); i++) {
      await new Promise((r) => setTimeout(r, 250));
      usage = await client.usage.get({ days: 7, recent_limit: 5 });
    }
    assert.ok(caughtUp(usage), `the request log never caught up: ${JSON.stringify(usage.recent.items)}`);
    assert.equal(usage.days, 7);
    assert.equal(usage.daily.length, 7);
    assert.ok(usage.total_requests >= 20, String(usage.total_requests));
    assert.equal(
      usage.daily.reduce((n, p) => n + p.requests, 0),
      usage.total_requests,
    );
    assert.ok(usage.error_count >= 1, 'the 404s and 400s above count as errors');
    assert.ok(
      usage.per_key.some((k) => k.key_uuid === me.uuid && k.requests > 0),
      'usage.per_key.some((k) => k.key_uuid === me.uuid && k.requests > 0)',
    );
    assert.equal(usage.recent.items.length, 5);
    assert.ok(usage.recent.next_cursor, 'usage.recent.next_cursor');
    const log = await client.usage.requests({ days: 7, recent_limit: 5 }).toArray(12);
    assert.equal(log.length, 12);
    assert.equal(new Set(log.map((e) => `${e.timestamp}|${e.endpoint}|${e.response_time_ms}`)).size, 12, 'pages do not overlap');
    const everything = await client.usage.requests({ days: 7, recent_limit: 100 }).toArray(1000);
    const searches = everything.filter((e) => e.endpoint.startsWith('/api/v1/search'));
    assert.ok(
      searches.some((e) => e.query === 'kestrelmarble' && e.result_count !== null),
      JSON.stringify(searches),
    );
    const mine = await client.usage.forKey(me.uuid, { days: 30 });
    assert.equal(mine.days, 30);
    assert.ok(mine.total_requests > 0, 'mine.total_requests > 0');

    const plan = await client.billing.plan();
    assert.equal(plan.plan, 'free');
    assert.equal(plan.included_queries, 1000);
    assert.ok(plan.used_queries >= 2, String(plan.used_queries));
    const invoices = await client.billing.invoices();
    assert.deepEqual(invoices.data, []);
    assert.equal(invoices.hasNextPage(), false);
  });

  it('webhooks: set returns the secret once; test delivers a signed event that verifyWebhook accepts', async () => {
    const received: { event: WebhookEvent | undefined; error: unknown }[] = [];
    let secret = '';
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        try {
          received.push({ event: await verifyWebhook({ secret, headers: req.headers, rawBody: Buffer.concat(chunks) }), error: undefined });
          res.writeHead(200).end('ok');
        } catch (error) {
          received.push({ event: undefined, error });
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await client.webhooks.set(url);
      assert.ok('secret' in created && created.secret.startsWith('whsec_'), "'secret' in created && created.secret.startsWith('whsec_')");
      secret = created.secret;
      assert.deepEqual(await client.webhooks.get(), { configured: true, url, is_active: true });
      const again = await client.webhooks.set(url);
      assert.equal('secret' in again, false, 'the secret is shown only on creation');

      const test = await client.webhooks.test();
      assert.equal(test.delivered, true);
      assert.equal(test.status_code, 200);
      assert.equal(received.length, 1);
      assert.equal(received[0]!.error, undefined);
      assert.equal(received[0]!.event!.event, 'webhook.test');
      assert.equal(received[0]!.event!.id, test.event_id);

      const deliveries = await client.webhooks.deliveries({ limit: 10 });
      assert.equal(deliveries.data[0]!.event_id, test.event_id);
      const redelivered = await client.webhooks.redeliver(deliveries.data[0]!.id);
      assert.equal(redelivered.success, true);
      assert.equal(redelivered.trigger, 'manual');
      assert.equal(received.at(-1)!.event!.id, test.event_id);
      assert.deepEqual(await client.webhooks.delete(), { configured: false, deleted: true });
    } finally {
      receiver.close();
    }
  });
});
