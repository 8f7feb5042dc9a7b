// Chaos: the connection to PostgreSQL drops right after COMMIT was sent, before its reply. The
// transaction committed, the daemon only saw a lost connection. A proxy in this test sits between
// the daemon and PostgreSQL and makes that happen on demand. Whatever the client is told, no blob a
// committed row references may be deleted, and a GET must show one consistent document.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { blobFiles } from './helpers/chaos.js';
import { createTenant, http, startTestDaemon, type HttpResult, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { startPgProxy, type PgProxy } from './helpers/pg-proxy.js';

describe('chaos: a lost COMMIT reply', () => {
  let db: TestDatabase;
  let proxy: PgProxy;
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string };
  let pdf: Buffer<ArrayBuffer>;
  let txt: Buffer<ArrayBuffer>;

  before(async () => {
    db = await createTestDatabase('chaos_commit');
    const u = new URL(db.url);
    proxy = await startPgProxy({ host: u.hostname, port: Number(u.port) });
    u.port = String(proxy.port);
    d = await startTestDaemon({ label: 'chaos_commit', db: { ...db, url: u.toString() } });
    t = await createTenant(d, 'commit');
    req = http(d.url);
    coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Lost commit' } })).body;
    pdf = await readFile(samplePath('sample.pdf'));
    txt = await readFile(samplePath('sample.txt'));
  });
  after(async () => {
    await d?.close();
    await proxy?.close();
    await db?.drop();
  });

  const rows = () =>
    d.deps.sql<{ id: string; blob_key: string; file_size: number; original_filename: string }[]>`
      select id, blob_key, file_size, original_filename from documents where blob_key is not null order by created_at, original_filename`;
  const onDisk = (key: string) => readFile(path.join(d.dataDir, 'blobs', key)).catch(() => null);
  const jobsFor = async (id: string) =>
    (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`process:${id}`}`)[0]!.n;

  /** Every committed row's blob is on disk with the uploaded bytes; nothing else is (no orphan, no temp file). */
  async function assertConsistent(expected: Map<string, Buffer>) {
    const all = await rows();
    const orphans = (await d.deps.sql<{ blob_key: string }[]>`select blob_key from orphan_blobs`).map((r) => r.blob_key);
    for (const r of all) {
      const bytes = await onDisk(r.blob_key);
      assert.ok(bytes, `the blob of committed document ${r.original_filename} exists`);
      const want = expected.get(r.original_filename);
      if (want) assert.ok(bytes.equals(want), `${r.original_filename}: stored bytes equal the upload`);
      assert.equal(await jobsFor(r.id), 1, `${r.original_filename}: processing enqueued exactly once`);
    }
    assert.deepEqual(
      (await blobFiles(d.dataDir)).filter((f) => !all.some((r) => r.blob_key === f) && !orphans.includes(f)),
      [],
      'no blob without a row',
    );
  }

  // The daemon asks PostgreSQL what became of the transaction (pg_xact_status), so a committed
  // upload is reported as the success it is. (Were the database unreachable at that moment, the
  // answer would be a retryable 503 SERVICE_UNAVAILABLE, and the files would still be kept.)
  function assertSuccess(r: { status: number; body: any; text: string }, success: number) {
    assert.equal(r.status, success, `the committed change is reported as a success: ${r.text}`);
  }

  it('single upload: the committed document keeps its file', async () => {
    const f = new FormData();
    f.append('file', new Blob([pdf]), 'single.pdf');
    proxy.armCommitCut(/insert into documents/i);
    const cutsBefore = proxy.cuts;
    const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(proxy.cuts, cutsBefore + 1, 'the COMMIT reply was cut');
    assertSuccess(r, 201);
    const committed = (await rows()).filter((x) => x.original_filename === 'single.pdf');
    assert.equal(committed.length, 1, 'the transaction committed exactly one row');
    assert.equal(r.body.uuid, committed[0]!.id);
    const g = await req('GET', `/api/v1/documents/${r.body.uuid}/`, { key: t.key });
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.file_size, pdf.length);
    await assertConsistent(new Map([['single.pdf', pdf]]));
  });

  it('batch upload: every committed document keeps its file', async () => {
    const f = new FormData();
    f.append('files', new Blob([pdf]), 'batch-a.pdf');
    f.append('files', new Blob([txt]), 'batch-b.txt');
    proxy.armCommitCut(/insert into documents/i);
    const cutsBefore = proxy.cuts;
    const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(proxy.cuts, cutsBefore + 1, 'the COMMIT reply was cut');
    assertSuccess(r, 201);
    const committed = (await rows()).filter((x) => x.original_filename.startsWith('batch-'));
    assert.equal(committed.length, 2);
    assert.equal(r.body.total_uploaded, 2, r.text);
    await assertConsistent(
      new Map([
        ['batch-a.pdf', pdf],
        ['batch-b.txt', txt],
      ]),
    );
  });

  it('replace: the new file survives, the previous one waits for the 7-day purge', async () => {
    const f = new FormData();
    f.append('file', new Blob([txt]), 'before.txt');
    const up = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(up.status, 201, up.text);
    const [old] = await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${up.body.uuid}`;

    const g = new FormData();
    g.append('file', new Blob([pdf]), 'after.pdf');
    proxy.armCommitCut(/generation = (d\.)?generation \+ 1/i);
    const cutsBefore = proxy.cuts;
    const r = await req('POST', `/api/v1/documents/${up.body.uuid}/replace/`, { key: t.key, body: g });
    assert.equal(proxy.cuts, cutsBefore + 1, 'the COMMIT reply was cut');
    assertSuccess(r, 200);
    const [now] = await d.deps.sql<{ blob_key: string; original_filename: string; generation: number }[]>`
      select blob_key, original_filename, generation from documents where id = ${up.body.uuid}`;
    assert.equal(now!.original_filename, 'after.pdf', 'the replace committed');
    assert.equal(now!.generation, 2);
    assert.ok((await onDisk(now!.blob_key))?.equals(pdf), 'the new file is stored');
    assert.ok(await onDisk(old!.blob_key), 'the previous file is kept for the purge');
    assert.equal((await d.deps.sql`select 1 from orphan_blobs where blob_key = ${old!.blob_key}`).length, 1);
    const detail = await req('GET', `/api/v1/documents/${up.body.uuid}/`, { key: t.key });
    assert.equal(detail.body.original_filename, 'after.pdf');
    assert.equal(detail.body.file_size, pdf.length);
    await assertConsistent(new Map([['after.pdf', pdf]]));
  });

  it('when the outcome cannot be learned (database unreachable): 503 with Retry-After, and the file is kept', async () => {
    const f = new FormData();
    f.append('file', new Blob([pdf]), 'unknown.pdf');
    // From the cut on, the database is unreachable: the daemon cannot ask what became of the COMMIT.
    proxy.armCommitCut(/insert into documents/i, { thenDown: true });
    const cutsBefore = proxy.cuts;
    let r: HttpResult;
    try {
      r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
    } finally {
      proxy.refuse(false);
    }
    assert.equal(proxy.cuts, cutsBefore + 1, 'the COMMIT reply was cut');
    assert.equal(r.status, 503, r.text);
    assert.equal(r.body.code, 'SERVICE_UNAVAILABLE');
    assert.ok(Number(r.headers.get('retry-after')) > 0, 'Retry-After');
    // It did commit; the row's file is there, and the listing shows it before any retry.
    const committed = (await rows()).filter((x) => x.original_filename === 'unknown.pdf');
    assert.equal(committed.length, 1);
    const list = await req('GET', `/api/v1/documents/?limit=500`, { key: t.key });
    assert.ok(list.body.some((x: { uuid: string }) => x.uuid === committed[0]!.id));
    await assertConsistent(new Map([['unknown.pdf', pdf]]));
  });

  it('after the faults, the daemon works normally through the same proxy', async () => {
    const f = new FormData();
    f.append('file', new Blob([txt]), 'later.txt');
    const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(r.status, 201, r.text);
    await assertConsistent(new Map([['later.txt', txt]]));
  });
});
