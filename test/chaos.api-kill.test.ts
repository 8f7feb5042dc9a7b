// Chaos: `kill -9` of a real API process in the middle of a batch upload. Complete blobs and a temp
// file stay behind with no row (the batch never committed). The scheduled orphan sweep removes them
// once the grace period has passed, and never touches a blob that a row (or the replace/delete purge
// queue) still references.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildTaskList, CRONTAB } from '../daemon/src/job-registry.js';
import { sweepOrphanBlobs } from '../daemon/src/documents/sweep-orphan-blobs.js';
import type { AppDeps } from '../daemon/src/types.js';
import { samplePath } from './fixtures/samples.js';
import { blobFiles, multipartBody, until } from './helpers/chaos.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOUR = 3_600_000;
const BOUNDARY = '----killBoundary5e8c1f';

/** `docsift-daemon serve --api-only` as a real child process; resolves with its URL once it serves. */
async function startApiProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', 'serve', '--api-only'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.resume();
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /docsift is running at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`API process exited (${code}) before serving: ${out}`)));
  });
  child.stdout!.resume();
  return { child, url };
}

describe('chaos: kill -9 of the API mid-batch, then the orphan sweep', () => {
  let d: TestDaemon;
  let t: Tenant;
  let api: { child: ChildProcess; url: string } | undefined;
  let coll: { uuid: string };
  let pdf: Buffer<ArrayBuffer>;
  let txt: Buffer<ArrayBuffer>;

  before(async () => {
    d = await startTestDaemon({ label: 'chaos_kill' });
    t = await createTenant(d, 'kill');
    // The child shares the database and the blob directory of the in-process daemon.
    api = await startApiProcess({
      DATABASE_URL: d.db.url,
      DATA_DIR: d.dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      SIGNING_SECRET: d.config.SIGNING_SECRET!,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      RATE_LIMITS_ENABLED: 'false',
    });
    coll = (await http(api.url)('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Killed' } })).body;
    pdf = await readFile(samplePath('sample.pdf'));
    txt = await readFile(samplePath('sample.txt'));
  });
  after(async () => {
    api?.child.kill('SIGKILL');
    await d?.close();
  });

  const at = (offsetMs: number): AppDeps => ({ ...d.deps, clock: { now: () => new Date(Date.now() + offsetMs) } });
  const blobKeys = async () =>
    (
      await d.deps.sql<
        { k: string }[]
      >`select blob_key as k from documents where blob_key is not null union select blob_key from orphan_blobs`
    )
      .map((r) => r.k)
      .sort();

  it('is a scheduled worker job', () => {
    assert.match(CRONTAB, /^\S+ \S+ \S+ \S+ \S+ sweep_orphan_blobs\b/m);
    assert.equal(typeof buildTaskList(d.deps).sweep_orphan_blobs, 'function');
  });

  it('blobs left by a killed batch are swept after the grace period; referenced ones never are', async () => {
    const req = http(api!.url);
    // Referenced blobs of three kinds: a live document, a deleted one (purged after 7 days) and a replaced file.
    const up = async (name: string, bytes: Buffer<ArrayBuffer>) => {
      const f = new FormData();
      f.append('file', new Blob([bytes]), name);
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
      assert.equal(r.status, 201, r.text);
      return r.body.uuid as string;
    };
    const keeper = await up('keeper.pdf', pdf);
    const deleted = await up('deleted.txt', txt);
    assert.equal((await req('DELETE', `/api/v1/documents/${deleted}/`, { key: t.key })).status, 204);
    const replaced = await up('replaced.txt', txt);
    const g = new FormData();
    g.append('file', new Blob([pdf]), 'replacement.pdf');
    assert.equal((await req('POST', `/api/v1/documents/${replaced}/replace/`, { key: t.key, body: g })).status, 200);
    const referenced = await blobKeys();
    assert.equal(referenced.length, 4);
    assert.deepEqual(await blobFiles(d.dataDir), referenced);

    // A batch of three complete files and a fourth in flight; the process dies before it can commit.
    const parts = [0, 1, 2].map((i) => ({ name: 'files', filename: `lost-${i}.pdf`, type: 'application/pdf', data: pdf }));
    const complete = multipartBody(BOUNDARY, parts, { close: false });
    const inFlight = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="lost-3.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    let ctrl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
    const pending = fetch(`${api!.url}/api/v1/collections/${coll.uuid}/documents/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body,
      duplex: 'half',
    } as RequestInit).catch((err: Error) => err);
    ctrl.enqueue(complete);
    ctrl.enqueue(inFlight);
    // More than the 64 KB a blob write gathers in memory first: the file is streaming to its temp
    // file when the process dies (a smaller one would be in memory only, and leave nothing).
    ctrl.enqueue(Buffer.alloc(256 * 1024, 'q'));
    const left = await until(
      async () => {
        const files = (await blobFiles(d.dataDir)).filter((f) => !referenced.includes(f));
        return files.length === 4 && files.some((f) => f.includes('.tmp-')) ? files : undefined;
      },
      10_000,
      'three stored blobs and a temp file of the batch',
    );
    api!.child.kill('SIGKILL');
    await new Promise((r) => api!.child.once('exit', r));
    assert.ok((await pending) instanceof Error, 'the client saw the connection die');
    api = undefined;

    // Nothing committed: the three complete blobs and the temp file have no row.
    assert.equal((await d.deps.sql`select 1 from documents where original_filename like 'lost-%'`).length, 0);
    assert.deepEqual(await blobKeys(), referenced);

    // Within the grace period the sweep keeps them: an upload may still be about to commit.
    assert.deepEqual(await sweepOrphanBlobs(at(23 * HOUR)), { removed: 0 });
    assert.equal((await blobFiles(d.dataDir)).length, referenced.length + left.length);

    // After it, exactly the unreferenced ones go; the referenced files are intact.
    assert.deepEqual(await sweepOrphanBlobs(at(25 * HOUR)), { removed: left.length });
    assert.deepEqual(await blobFiles(d.dataDir), referenced);
    const [k] = await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${keeper}`;
    assert.ok((await readFile(path.join(d.dataDir, 'blobs', k!.blob_key))).equals(pdf));

    // The client retries the batch on a daemon that lives: stored once, and a later sweep keeps it.
    const f = new FormData();
    for (let i = 0; i < 3; i++) f.append('files', new Blob([pdf]), `lost-${i}.pdf`);
    const retry = await http(d.url)('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.total_uploaded, 3);
    assert.equal((await d.deps.sql`select 1 from documents where original_filename like 'lost-%'`).length, 3, 'no duplicate');
    assert.deepEqual(await sweepOrphanBlobs(at(25 * HOUR)), { removed: 0 });
    assert.deepEqual(await blobFiles(d.dataDir), await blobKeys());
  });

  it('ORPHAN_BLOB_GRACE_HOURS sets the grace period', async () => {
    const f = path.join(d.dataDir, 'blobs', 'docs', coll.uuid, 'stray-orphan');
    await import('node:fs/promises').then((fs) => fs.writeFile(f, 'x'));
    const deps = (hours: number, offset: number): AppDeps => ({
      ...at(offset),
      config: { ...d.deps.config, ORPHAN_BLOB_GRACE_HOURS: hours },
    });
    assert.deepEqual(await sweepOrphanBlobs(deps(2, 1 * HOUR)), { removed: 0 });
    assert.deepEqual(await sweepOrphanBlobs(deps(2, 3 * HOUR)), { removed: 1 });
  });
});
