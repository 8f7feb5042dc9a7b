// `admin backup` while uploads keep coming, then a wipe (database dropped, DATA_DIR removed), then
// `admin restore` into an empty database and DATA_DIR: no document indexed before the backup began
// is lost, every restored file's SHA-256 is the one recorded at upload, every document uploaded
// during the backup is there whole (row and file) or not at all, the fixed queries return the same
// top 10, and the webhook secret still opens under the restored signing secret.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openWebhookSecret } from '../daemon/src/webhooks/secrets.js';
import { runAdminProcess } from './helpers/admin-run.js';
import { createTenant, http, startTestDaemon, type TestDaemon, type Tenant } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { topicText, topTens } from './helpers/topic-corpus.js';

const SECRET = 'test-signing-secret-0123456789abcdef0123456789abcdef';
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

interface Sent {
  id: string;
  sha256: string;
  /** When the 201 arrived (ms since epoch). */
  at: number;
}

describe('backup → wipe → restore under continuous uploads', () => {
  let ollama: FakeOllama;
  let d1: TestDaemon;
  let d2: TestDaemon | undefined;
  let db2: TestDatabase | undefined;
  let tenant: Tenant;
  let stable: { uuid: string };
  let busy: { uuid: string };
  let repo: string;
  let dataDir2: string;
  let webhookSecret: string;
  const env = () => ({
    EMBEDDING_PROVIDER: 'ollama',
    OLLAMA_HOST: ollama.url,
    OLLAMA_MODEL: 'nomic-embed-text',
    ALLOW_PRIVATE_URLS: 'true',
  });

  const uploadFile = async (req: ReturnType<typeof http>, collection: string, name: string, text: string): Promise<Sent> => {
    const form = new FormData();
    form.append('file', new Blob([text]), name);
    const r = await req('POST', `/api/v1/collections/${collection}/documents/`, { key: tenant.key, body: form });
    if (r.status !== 201) throw new Error(`upload ${name}: ${r.status} ${r.text}`);
    return { id: r.body.uuid, sha256: sha256(text), at: Date.now() };
  };

  before(async () => {
    ollama = await startFakeOllama({ dimension: 16 });
    d1 = await startTestDaemon({ label: 'backup_src', worker: true, env: env() });
    const req = http(d1.url);
    tenant = await createTenant(d1, 'backup');
    stable = await makeCollection(req, tenant.key, 'Stable papers');
    busy = await makeCollection(req, tenant.key, 'Busy inbox');
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push((await uploadFile(req, stable.uuid, `note-${i}.md`, topicText(i))).id);
    for (let i = 24; i < 32; i++) {
      const r = await req('POST', `/api/v1/collections/${stable.uuid}/documents/`, {
        key: tenant.key,
        json: { source_type: 'text', title: `Text ${i}`, content: topicText(i), tags: ['inline', `n${i}`], metadata: { n: i } },
      });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.uuid);
    }
    await waitSettled(req, tenant.key, ids, 120_000);
    const w = await req('POST', '/api/v1/webhooks/', { key: tenant.key, json: { url: 'http://127.0.0.1:9/hook' } });
    assert.equal(w.status, 201, w.text);
    webhookSecret = w.body.secret;
    repo = await mkdtemp(path.join(os.tmpdir(), 'docsift-backup-repo-'));
    dataDir2 = await mkdtemp(path.join(os.tmpdir(), 'docsift-restored-'));
  });
  after(async () => {
    await d2?.close();
    await d1?.close().catch(() => {});
    await db2?.drop();
    await ollama?.close();
    for (const dir of [repo, dataDir2]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loses nothing indexed before it began, and keeps each file whole', async () => {
    const req = http(d1.url);
    const before = await topTens(req, tenant.key, [stable.uuid]);
    // Uploads into another collection go on before, during and after the backup.
    const sent: Sent[] = [];
    let stop = false;
    let n = 0;
    const uploader = (async () => {
      while (!stop) sent.push(await uploadFile(req, busy.uuid, `inbox-${n}.txt`, topicText(n, `inbox ${n++}`)));
    })();
    while (sent.length < 5) await new Promise((r) => setTimeout(r, 20));
    const indexedBefore = (await d1.deps.sql<{ id: string }[]>`select id from documents where status = 'indexed'`).map((r) => r.id);
    const began = Date.now();
    const b = await runAdminProcess(['backup', '--to', repo, '--json'], {
      DATABASE_URL: d1.db.url,
      DATA_DIR: d1.dataDir,
      SIGNING_SECRET: SECRET,
    });
    const ended = Date.now();
    const during = sent.filter((s) => s.at > began && s.at < ended).length;
    const atStart = sent.length;
    while (sent.length < atStart + 3) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await uploader;
    assert.equal(b.code, 0, b.stderr);
    const result = b.json();
    assert.ok(during > 0, 'uploads were answered while the backup ran');
    assert.deepEqual(result.missing, []);
    assert.deepEqual(result.mismatched, []);
    const manifest = JSON.parse(await readFile(path.join(repo, 'manifest.json'), 'utf8'));
    assert.equal(manifest.files.database.sha256, sha256(await readFile(path.join(repo, 'database.pgdump'))));
    assert.equal(manifest.blobs.count, result.blobs);

    // The wipe: the database is dropped and DATA_DIR removed.
    await d1.close();
    db2 = await createTestDatabase('backup_restored', { empty: true });
    const r = await runAdminProcess(['restore', '--from', repo, '--json'], {
      DATABASE_URL: db2.url,
      DATA_DIR: dataDir2,
      SIGNING_SECRET: SECRET,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json().blobs, result.blobs);
    d2 = await startTestDaemon({ db: db2, worker: true, env: { ...env(), DATA_DIR: dataDir2 } });
    const req2 = http(d2.url);

    const restored = await d2.deps.sql<{ id: string; blob_key: string | null; content_sha256: string | null; collection_id: string }[]>`
      select id, blob_key, content_sha256, collection_id from documents`;
    const ids = new Set(restored.map((x) => x.id));
    assert.deepEqual(
      indexedBefore.filter((id) => !ids.has(id)),
      [],
      'every document indexed before the backup began',
    );
    for (const s of sent.filter((x) => x.at < began)) assert.ok(ids.has(s.id), `upload answered before the backup began: ${s.id}`);
    let files = 0;
    for (const x of restored) {
      if (!x.blob_key) continue;
      assert.equal(sha256(await d2.deps.blobs.read(x.blob_key)), x.content_sha256, x.blob_key);
      files++;
    }
    assert.equal(files, result.blobs);
    const bySent = new Map(sent.map((s) => [s.id, s]));
    for (const x of restored.filter((y) => y.collection_id === busy.uuid)) assert.equal(x.content_sha256, bySent.get(x.id)?.sha256);
    // Documents pending at the snapshot are processed by the restored instance.
    await waitSettled(req2, tenant.key, [...ids], 120_000);
    assert.deepEqual(await topTens(req2, tenant.key, [stable.uuid]), before);

    const [hook] = await d2.deps.sql<{ organization_id: string; secret: string; url: string }[]>`
      select organization_id, secret, url from webhooks`;
    assert.equal(hook!.url, 'http://127.0.0.1:9/hook');
    assert.equal(openWebhookSecret(SECRET, hook!.organization_id, hook!.secret), webhookSecret);
    const key = await req2('GET', '/api/v1/keys/current/', { key: tenant.key });
    assert.equal(key.status, 200, key.text);
  });
});
