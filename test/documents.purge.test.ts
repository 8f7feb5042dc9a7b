import assert from 'node:assert/strict';
import { access, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, resolvedConfig } from '../daemon/src/config.js';
import { CRONTAB } from '../daemon/src/job-registry.js';
import { createLogger } from '../daemon/src/logger.js';
import { startDaemon } from '../daemon/src/server.js';
import { BLOB_RETENTION_DAYS, purgeBlobs, purgeBlobsTask } from '../daemon/src/documents/purge-blobs.js';
import { samplePath } from './fixtures/samples.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const DAY = 86_400_000;

// The 7-day rule is tested by moving the daemon's clock (the `clock` option), never by waiting.
describe('blob purge after the 7-day grace period', () => {
  let d: TestDaemon;
  // Stand-in embedder: no model to load, so the file stays fast when run alongside others.
  let ollama: FakeOllama;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let offsetMs = 0;
  let n = 0;

  before(async () => {
    ollama = await startFakeOllama();
    d = await startTestDaemon({
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url },
      label: 'doc_purge',
      worker: true,
      clock: { now: () => new Date(Date.now() + offsetMs) },
    });
    t = await createTenant(d, 'purge');
    req = http(d.url);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  async function createCollection(): Promise<{ uuid: string }> {
    const r = await req('POST', '/api/v1/collections/', { key: t.key, json: { name: `Purge ${++n}` } });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  async function upload(collectionId: string, file = 'sample.txt'): Promise<{ id: string; blob: string }> {
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath(file))]), file);
    const r = await req('POST', `/api/v1/collections/${collectionId}/documents/`, { key: t.key, body: f });
    assert.equal(r.status, 201, r.text);
    return { id: r.body.uuid, blob: await blobOf(r.body.uuid) };
  }
  const blobOf = async (id: string) =>
    (await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${id}`)[0]!.blob_key;
  const onDisk = (key: string) =>
    access(path.join(d.dataDir, 'blobs', key)).then(
      () => true,
      () => false,
    );
  const purgedAt = async (id: string) =>
    (await d.deps.sql<{ blob_purged_at: Date | null }[]>`select blob_purged_at from documents where id = ${id}`)[0]!.blob_purged_at;
  /** Runs the purge with the clock `days` after now (real time), then puts the clock back. */
  async function purgeAt(days: number) {
    offsetMs = days * DAY;
    try {
      return await purgeBlobs(d.deps);
    } finally {
      offsetMs = 0;
    }
  }

  it('is scheduled as a recurring worker job', () => {
    assert.match(CRONTAB, /\bpurge_blobs\b/);
    assert.equal(BLOB_RETENTION_DAYS, 7);
  });

  it('a soft-deleted document keeps its blob for 7 days, then it is purged; a second run is a no-op', async () => {
    const c = await createCollection();
    const gone = await upload(c.uuid);
    const kept = await upload(c.uuid, 'sample.md');
    assert.equal((await req('DELETE', `/api/v1/documents/${gone.id}/`, { key: t.key })).status, 204);

    const early = await purgeAt(BLOB_RETENTION_DAYS - 1);
    assert.equal(early.documents, 0);
    assert.ok(await onDisk(gone.blob), 'kept during the grace period');
    assert.equal(await purgedAt(gone.id), null);

    const late = await purgeAt(BLOB_RETENTION_DAYS + 0.01);
    assert.ok(late.documents >= 1);
    assert.ok(!(await onDisk(gone.blob)), 'purged after 7 days');
    assert.ok(await purgedAt(gone.id));
    assert.ok(await onDisk(kept.blob), 'live documents are never purged');

    assert.deepEqual(await purgeAt(BLOB_RETENTION_DAYS + 1), { documents: 0, orphans: 0 }, 'idempotent');
    assert.ok(await onDisk(kept.blob));
  });

  it('a deleted collection: every document blob kept for 7 days, then purged', async () => {
    const c = await createCollection();
    const docs = [await upload(c.uuid), await upload(c.uuid, 'sample.csv'), await upload(c.uuid, 'sample.pdf')];
    assert.equal((await req('DELETE', `/api/v1/collections/${c.uuid}/`, { key: t.key })).status, 204);
    await purgeAt(BLOB_RETENTION_DAYS - 0.5);
    for (const doc of docs) assert.ok(await onDisk(doc.blob), 'kept during the grace period');
    const r = await purgeAt(BLOB_RETENTION_DAYS + 0.5);
    assert.ok(r.documents >= docs.length);
    for (const doc of docs) {
      assert.ok(!(await onDisk(doc.blob)));
      assert.ok(await purgedAt(doc.id));
    }
    const [coll] = await d.deps.sql<{ blobs_purged_at: Date | null }[]>`select blobs_purged_at from collections where id = ${c.uuid}`;
    assert.ok(coll?.blobs_purged_at, 'the collection is marked purged');
  });

  it("a replaced document's old file is purged after 7 days; the current one stays", async () => {
    const c = await createCollection();
    const doc = await upload(c.uuid);
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath('sample.md'))]), 'sample.md');
    assert.equal((await req('POST', `/api/v1/documents/${doc.id}/replace/`, { key: t.key, body: f })).status, 200);
    const current = await blobOf(doc.id);
    assert.notEqual(current, doc.blob);

    assert.equal((await purgeAt(BLOB_RETENTION_DAYS - 1)).orphans, 0);
    assert.ok(await onDisk(doc.blob));
    const r = await purgeAt(BLOB_RETENTION_DAYS + 0.01);
    assert.equal(r.orphans, 1);
    assert.ok(!(await onDisk(doc.blob)), 'old file purged');
    assert.ok(await onDisk(current), 'current file kept');
    assert.equal((await d.deps.sql`select 1 from orphan_blobs where blob_key = ${doc.blob}`).length, 0);
    assert.deepEqual(await purgeAt(BLOB_RETENTION_DAYS + 2), { documents: 0, orphans: 0 });
  });

  it('a blob that is already gone counts as purged (no error, no retry loop)', async () => {
    const c = await createCollection();
    const doc = await upload(c.uuid);
    assert.equal((await req('DELETE', `/api/v1/documents/${doc.id}/`, { key: t.key })).status, 204);
    await rm(path.join(d.dataDir, 'blobs', doc.blob));
    const r = await purgeAt(BLOB_RETENTION_DAYS + 1);
    assert.equal(r.documents, 1);
    assert.ok(await purgedAt(doc.id));
  });

  it('CLOCK_OFFSET_MS moves the clock of a daemon started on the same database and data dir', async () => {
    const c = await createCollection();
    const doc = await upload(c.uuid);
    assert.equal((await req('DELETE', `/api/v1/documents/${doc.id}/`, { key: t.key })).status, 204);
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: d.dataDir,
      DATABASE_URL: d.db.url,
      SIGNING_SECRET: d.config.SIGNING_SECRET,
      DB_POOL_MAX: '2',
      EMBEDDING_PROVIDER: 'ollama',
      OLLAMA_HOST: ollama.url,
      CLOCK_OFFSET_MS: String((BLOB_RETENTION_DAYS + 1) * DAY),
    });
    const later = await startDaemon(resolvedConfig(config), createLogger('silent'), {
      api: false,
      worker: false,
      migrate: false,
    });
    try {
      assert.ok(later.deps.clock.now().getTime() - Date.now() > BLOB_RETENTION_DAYS * DAY);
      assert.equal((await purgeBlobs(later.deps)).documents, 1);
    } finally {
      await later.stop();
    }
    assert.ok(!(await onDisk(doc.blob)));
  });

  it('the purge_blobs task runs through the worker with the moved clock', async () => {
    const c = await createCollection();
    const doc = await upload(c.uuid);
    assert.equal((await req('DELETE', `/api/v1/documents/${doc.id}/`, { key: t.key })).status, 204);
    await purgeBlobsTask(d.deps)({}, {} as never); // the task body, at today's clock: nothing yet
    assert.ok(await onDisk(doc.blob));

    offsetMs = (BLOB_RETENTION_DAYS + 1) * DAY;
    try {
      await d.deps.sql`select graphile_worker.add_job('purge_blobs', '{}'::json)`;
      const deadline = Date.now() + 10_000;
      while (await onDisk(doc.blob)) {
        assert.ok(Date.now() < deadline, 'the worker did not purge the blob');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      offsetMs = 0;
    }
    assert.ok(await purgedAt(doc.id));
  });
});
