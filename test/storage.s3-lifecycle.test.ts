// STORAGE=s3 against a real S3-protocol server (s3rver on a loopback port), through
// @aws-sdk/client-s3 over HTTP: the whole document lifecycle, a 50 MiB upload streamed in parts, and
// the jobs that delete stored files. Time-based rules move the daemon's clock, never wait.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { BLOB_RETENTION_DAYS, purgeBlobs } from '../daemon/src/documents/purge-blobs.js';
import { sweepOrphanBlobs } from '../daemon/src/documents/sweep-orphan-blobs.js';
import { S3_PART_BYTES } from '../daemon/src/storage/s3.js';
import { samplePath } from './fixtures/samples.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { startS3Server, type TestS3 } from './helpers/s3-server.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MiB = 1024 * 1024;

describe('S3 storage: the document lifecycle against a real S3 server', () => {
  let s3: TestS3;
  let ollama: FakeOllama;
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let offsetMs = 0;
  let collection: string;

  before(async () => {
    [s3, ollama] = await Promise.all([startS3Server(), startFakeOllama()]);
    d = await startTestDaemon({
      label: 's3_life',
      worker: true,
      env: { ...s3.env(), EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url },
      clock: { now: () => new Date(Date.now() + offsetMs) },
    });
    t = await createTenant(d, 's3');
    req = http(d.url);
    collection = (await makeCollection(req, t.key, 'S3 lifecycle')).uuid;
  });
  after(async () => {
    await d?.close();
    await Promise.all([s3?.destroy(), ollama?.close()]);
  });

  const blobOf = async (id: string) =>
    (await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${id}`)[0]!.blob_key;
  const stored = async (key: string) => (await s3.objects(key)).some((o) => o.key === key);
  async function at<T>(offset: number, f: () => Promise<T>): Promise<T> {
    offsetMs = offset;
    try {
      return await f();
    } finally {
      offsetMs = 0;
    }
  }
  async function upload(name: string, body: Buffer | string, type = 'text/markdown') {
    const f = new FormData();
    f.append('file', new Blob([typeof body === 'string' ? body : new Uint8Array(body)], { type }), name);
    const r = await req('POST', `/api/v1/collections/${collection}/documents/`, { key: t.key, body: f });
    assert.equal(r.status, 201, r.text);
    return r.body as { uuid: string };
  }
  const search = async (query: string) =>
    (await req('POST', '/api/v1/search/', { key: t.key, json: { query, mode: 'text', collection_id: collection } })).body.results as {
      document_id: string;
    }[];

  it('the start-up check wrote and deleted its probe object, and nothing else is stored yet', async () => {
    assert.ok(
      s3.requests.some((r) => r.method === 'HEAD' && r.path.replace(/\/$/, '') === `/${s3.bucket}`),
      JSON.stringify(s3.requests.slice(0, 3)),
    );
    assert.ok(s3.requests.some((r) => r.method === 'PUT' && r.path.startsWith(`/${s3.bucket}/docsift-check/`)));
    assert.deepEqual(await s3.objects(), []);
  });

  it('upload stores the file in the bucket under its blob key; it is indexed and searchable', async () => {
    const doc = await upload('zebra.md', '# Zebras\n\nStriped zebras graze on the savanna grass.\n');
    const key = await blobOf(doc.uuid);
    assert.match(key, new RegExp(`^docs/${collection}/${doc.uuid}$`));
    assert.equal((await s3.read(key)).toString(), '# Zebras\n\nStriped zebras graze on the savanna grass.\n');
    const [settled] = await waitSettled(req, t.key, [doc.uuid]);
    assert.equal(settled.status, 'indexed', settled.error_message);
    assert.ok((await search('striped zebras')).some((r) => r.document_id === doc.uuid));
  });

  it('download answers 302 to a presigned S3 URL; GET on it returns the bytes with the file name', async () => {
    const body = Buffer.from('# Okapi\n\nThe okapi lives in the rainforest.\n');
    const doc = await upload('okapi notes.md', body);
    const r = await req('GET', `/api/v1/documents/${doc.uuid}/download/`, { key: t.key });
    assert.equal(r.status, 302, r.text);
    const location = new URL(r.headers.get('location')!);
    assert.equal(location.origin, s3.endpoint, 'the link points at the store, not the daemon');
    assert.ok(location.searchParams.get('X-Amz-Signature'), 'signed (SigV4 query)');
    assert.equal(location.searchParams.get('X-Amz-Expires'), '3600');
    const file = await fetch(location);
    assert.equal(file.status, 200);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), body);
    assert.match(file.headers.get('content-disposition') ?? '', /filename\*=UTF-8''okapi%20notes\.md/);
    assert.equal(file.headers.get('content-type'), 'text/markdown');
  });

  it('replace stores a new object; the old one waits 7 days in the purge queue; reprocess keeps the object', async () => {
    const doc = await upload('lemur.md', '# Lemurs\n\nRing-tailed lemurs of Madagascar.\n');
    await waitSettled(req, t.key, [doc.uuid]);
    const oldKey = await blobOf(doc.uuid);
    const f = new FormData();
    f.append('file', new Blob(['# Tapirs\n\nLowland tapirs swim in rivers.\n'], { type: 'text/markdown' }), 'tapir.md');
    const r = await req('POST', `/api/v1/documents/${doc.uuid}/replace/`, { key: t.key, body: f });
    assert.equal(r.status, 200, r.text);
    const newKey = await blobOf(doc.uuid);
    assert.notEqual(newKey, oldKey);
    assert.equal((await s3.read(newKey)).toString(), '# Tapirs\n\nLowland tapirs swim in rivers.\n');
    assert.ok(await stored(oldKey), 'the replaced file is kept until the purge');
    const [replaced] = await waitSettled(req, t.key, [doc.uuid]);
    assert.equal(replaced.status, 'indexed');
    assert.ok((await search('lowland tapirs')).some((x) => x.document_id === doc.uuid));
    assert.ok(!(await search('ring-tailed lemurs')).some((x) => x.document_id === doc.uuid), 'old text left search');

    const again = await req('POST', `/api/v1/documents/${doc.uuid}/reprocess/`, { key: t.key });
    assert.equal(again.status, 200, again.text);
    const [reprocessed] = await waitSettled(req, t.key, [doc.uuid]);
    assert.equal(reprocessed.status, 'indexed', 'processed again from the stored object');
    assert.equal(await blobOf(doc.uuid), newKey);

    assert.equal((await at((BLOB_RETENTION_DAYS - 1) * DAY, () => purgeBlobs(d.deps))).orphans, 0);
    assert.ok(await stored(oldKey));
    assert.ok((await at((BLOB_RETENTION_DAYS + 0.01) * DAY, () => purgeBlobs(d.deps))).orphans >= 1);
    assert.ok(!(await stored(oldKey)), 'old object deleted from the bucket');
    assert.ok(await stored(newKey), 'current object kept');
  });

  it('delete hides the document at once; its object is deleted by the purge after 7 days, not before', async () => {
    const doc = await upload('ibis.md', '# Ibis\n\nScarlet ibis wading.\n');
    await waitSettled(req, t.key, [doc.uuid]);
    const key = await blobOf(doc.uuid);
    assert.equal((await req('DELETE', `/api/v1/documents/${doc.uuid}/`, { key: t.key })).status, 204);
    assert.equal((await req('GET', `/api/v1/documents/${doc.uuid}/`, { key: t.key })).status, 404);
    await at((BLOB_RETENTION_DAYS - 1) * DAY, () => purgeBlobs(d.deps));
    assert.ok(await stored(key), 'kept during the grace period');
    const r = await at((BLOB_RETENTION_DAYS + 0.01) * DAY, () => purgeBlobs(d.deps));
    assert.ok(r.documents >= 1);
    assert.ok(!(await stored(key)), 'purged from the bucket');
    assert.deepEqual(await at((BLOB_RETENTION_DAYS + 1) * DAY, () => purgeBlobs(d.deps)), { documents: 0, orphans: 0 }, 'idempotent');
  });

  it('the orphan sweep deletes objects no document references once past the grace period, and nothing else', async () => {
    const live = await upload('heron.md', '# Heron\n\nGrey heron.\n');
    const liveKey = await blobOf(live.uuid);
    const stray = `docs/${collection}/${randomUUID()}`;
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: stray, Body: 'left by a crash' }));
    assert.deepEqual(await at(23 * HOUR, () => sweepOrphanBlobs(d.deps)), { removed: 0 }, 'young objects are left alone');
    const swept = await at(25 * HOUR, () => sweepOrphanBlobs(d.deps));
    assert.equal(swept.removed, 1);
    assert.ok(!(await stored(stray)));
    assert.ok(await stored(liveKey), 'referenced objects stay');
    assert.deepEqual(await at(25 * HOUR, () => sweepOrphanBlobs(d.deps)), { removed: 0 });
  });

  it('a missing object fails its document for good (no retries), and download answers DOCUMENT_FILE_NOT_FOUND', async () => {
    const doc = await upload('gone.md', '# Gone\n\nSoon missing.\n');
    await waitSettled(req, t.key, [doc.uuid]);
    await d.deps.blobs.delete(await blobOf(doc.uuid));
    assert.equal((await req('POST', `/api/v1/documents/${doc.uuid}/reprocess/`, { key: t.key })).status, 200);
    const [failed] = await waitSettled(req, t.key, [doc.uuid]);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error_message, /stored file is missing/);
    const [row] = await d.deps.sql<{ attempts: number }[]>`select attempts from documents where id = ${doc.uuid}`;
    assert.equal(row?.attempts, 1, 'failed at the first attempt, not retried');
    const r = await req('GET', `/api/v1/documents/${doc.uuid}/download/`, { key: t.key });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'DOCUMENT_FILE_NOT_FOUND');
  });

  it('the sample fixtures round-trip byte for byte through S3', async () => {
    const pdf = await readFile(samplePath('sample.pdf'));
    const doc = await upload('sample.pdf', pdf, 'application/pdf');
    assert.deepEqual(await s3.read(await blobOf(doc.uuid)), pdf);
    const [settled] = await waitSettled(req, t.key, [doc.uuid]);
    assert.equal(settled.status, 'indexed', settled.error_message);
  });

  it('a 50 MiB upload is streamed to S3 in 5 MiB multipart parts, never held whole; the presigned download returns it', async () => {
    // An API-only daemon on a database of its own: extracting 50 MiB of text takes the worker about
    // 20 s, which would only slow this file down; what is tested here is the way into the bucket.
    const api = await startTestDaemon({ label: 's3_big', env: s3.env() });
    const owner = await createTenant(api, 's3big');
    const target = (await makeCollection(http(api.url), owner.key, 'Big')).uuid;
    try {
      await bigUpload(api, owner.key, target);
    } finally {
      await api.close();
    }
  });

  async function bigUpload(api: TestDaemon, key: string, target: string) {
    const total = 50 * MiB;
    const boundary = `----docsift${randomUUID()}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const hash = createHash('sha256');
    const line = 'All work and no play makes a large upload that streams in parts.\n';
    const block = (n: number) => {
      const b = Buffer.from(`${n.toString().padStart(8, '0')} ${line}`.repeat(Math.ceil(MiB / (line.length + 9)))).subarray(0, MiB);
      hash.update(b);
      return b;
    };
    // Uploads in this file run one at a time, and only this one is large enough for multipart.
    const firstRequest = s3.requests.length;
    const acked = () => s3.requests.slice(firstRequest).filter((r) => r.method === 'PUT' && r.query.has('partNumber') && r.status === 200);
    // The client sends at most 15 MiB more than the parts S3 has acknowledged: a daemon that
    // buffered the whole file before writing it would never acknowledge one, and this would time out.
    const AHEAD = 15 * MiB;
    let started = false;
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(head);
          return;
        }
        if (i * MiB >= total) {
          controller.enqueue(tail);
          controller.close();
          return;
        }
        const need = Math.ceil((i * MiB - AHEAD) / S3_PART_BYTES);
        if (need > 0 && acked().length < need)
          await s3.waitForRequest(() => acked().length >= need, 60_000, `${need} parts acknowledged by S3 with ${i} MiB sent`);
        controller.enqueue(block(i++));
      },
    });
    const res = await fetch(`${api.url}/api/v1/collections/${target}/documents/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const created = (await res.json()) as { uuid: string; file_size: number };
    assert.equal(res.status, 201, JSON.stringify(created));
    assert.equal(created.file_size, total);
    const blobKey = (await api.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${created.uuid}`)[0]!.blob_key;
    const parts = acked();
    assert.ok(parts.every((p) => p.path === `/${s3.bucket}/${blobKey}`));
    assert.equal(parts.length, total / S3_PART_BYTES, 'ten parts');
    assert.ok(
      parts.every((p) => p.contentLength <= S3_PART_BYTES),
      `each part at most 5 MiB: ${parts.map((p) => p.contentLength)}`,
    );
    assert.ok(
      s3.requests.some((r) => r.method === 'POST' && r.path === `/${s3.bucket}/${blobKey}` && r.query.has('uploadId')),
      'completed',
    );
    assert.equal((await s3.objects(blobKey))[0]?.size, total);

    const r = await http(api.url)('GET', `/api/v1/documents/${created.uuid}/download/`, { key });
    assert.equal(r.status, 302);
    const file = await fetch(r.headers.get('location')!);
    assert.equal(file.status, 200);
    const got = createHash('sha256');
    let size = 0;
    for await (const c of file.body as unknown as AsyncIterable<Uint8Array>) {
      got.update(c);
      size += c.length;
    }
    assert.equal(size, total);
    assert.equal(got.digest('hex'), hash.digest('hex'), 'the same bytes come back');
  }
});
