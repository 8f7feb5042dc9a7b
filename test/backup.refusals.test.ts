// What backup and restore refuse, and the S3 repository: a restore never writes into a database or
// store that holds data, never restores a damaged or unfinished backup, never pairs the data with a
// signing secret that cannot open its webhook secrets; a backup never overwrites another. A backup
// to `s3://bucket/prefix` (the S3-protocol test server) restores like a directory one.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAdminProcess } from './helpers/admin-run.js';
import { createTenant, http, startTestDaemon, type TestDaemon, type Tenant } from './helpers/daemon.js';
import { makeCollection } from './helpers/docs.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { startS3Server, type TestS3 } from './helpers/s3-server.js';

const SECRET = 'test-signing-secret-0123456789abcdef0123456789abcdef';

describe('backup and restore refusals, and an S3 repository', () => {
  let d: TestDaemon;
  let tenant: Tenant;
  let s3: TestS3;
  let tmp: string;
  const dbs: TestDatabase[] = [];
  let repo: string;
  const source = () => ({ DATABASE_URL: d.db.url, DATA_DIR: d.dataDir, SIGNING_SECRET: SECRET });
  const emptyTarget = async (label: string) => {
    const db = await createTestDatabase(label, { empty: true });
    dbs.push(db);
    return { db, DATA_DIR: await mkdtemp(path.join(tmp, 'data-')) };
  };

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'docsift-backup-refusals-'));
    s3 = await startS3Server({ bucket: 'backups' });
    d = await startTestDaemon({ label: 'backup_refusals' });
    tenant = await createTenant(d, 'refusals');
    const c = await makeCollection(http(d.url), tenant.key, 'Files');
    for (const name of ['a.txt', 'b.txt']) {
      const form = new FormData();
      form.append('file', new Blob([`contents of ${name} about lighthouses`]), name);
      const r = await http(d.url)('POST', `/api/v1/collections/${c.uuid}/documents/`, { key: tenant.key, body: form });
      assert.equal(r.status, 201, r.text);
    }
    repo = path.join(tmp, 'repo');
    const b = await runAdminProcess(['backup', '--to', repo, '--json'], source());
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.json().blobs, 2);
  });
  after(async () => {
    await d?.close();
    for (const db of dbs) await db.drop();
    await s3?.destroy();
    await rm(tmp, { recursive: true, force: true });
  });

  it('needs --to and --from (exit 2 with the usage)', async () => {
    const b = await runAdminProcess(['backup'], source());
    assert.equal(b.code, 2);
    assert.match(b.stderr, /--to is required/);
    const r = await runAdminProcess(['restore'], source());
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--from is required/);
  });

  it('never writes a backup over another', async () => {
    const b = await runAdminProcess(['backup', '--to', repo], source());
    assert.equal(b.code, 1);
    assert.match(b.stderr, /already holds a backup/);
  });

  it('refuses a database that holds data, and changes nothing in it', async () => {
    const r = await runAdminProcess(['restore', '--from', repo], { ...source(), DATA_DIR: await mkdtemp(path.join(tmp, 'x-')) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /target database is not empty/);
    const [n] = await d.deps.sql<{ n: number }[]>`select count(*)::int as n from documents`;
    assert.equal(n!.n, 2);
  });

  it('refuses a directory without a finished backup', async () => {
    const t = await emptyTarget('restore_nomanifest');
    const r = await runAdminProcess(['restore', '--from', path.join(tmp, 'nothing-here')], {
      DATABASE_URL: t.db.url,
      DATA_DIR: t.DATA_DIR,
      SIGNING_SECRET: SECRET,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /holds no finished backup/);
  });

  it('refuses a SIGNING_SECRET other than the backup’s', async () => {
    const t = await emptyTarget('restore_secret');
    const r = await runAdminProcess(['restore', '--from', repo], {
      DATABASE_URL: t.db.url,
      DATA_DIR: t.DATA_DIR,
      SIGNING_SECRET: `${SECRET}-other`,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /SIGNING_SECRET differs/);
  });

  it('refuses a damaged file and leaves the database empty', async () => {
    const copy = path.join(tmp, 'damaged');
    await runCopy(repo, copy);
    const blobDir = path.join(copy, 'blobs', 'docs');
    const [coll] = await readdir(blobDir);
    const [file] = await readdir(path.join(blobDir, coll!));
    const target = path.join(blobDir, coll!, file!);
    const bytes = await readFile(target);
    bytes[0] = bytes[0]! ^ 1;
    await writeFile(target, bytes);
    const t = await emptyTarget('restore_damaged');
    const r = await runAdminProcess(['restore', '--from', copy], { DATABASE_URL: t.db.url, DATA_DIR: t.DATA_DIR, SIGNING_SECRET: SECRET });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is damaged/);
    const sql = (await import('postgres')).default(t.db.url, { max: 1, onnotice: () => {} });
    try {
      const [n] = await sql<{ n: number }[]>`select count(*)::int as n from pg_tables where schemaname = 'public'`;
      assert.equal(n!.n, 0);
    } finally {
      await sql.end();
    }
  });

  it('writes the signing secret into an empty DATA_DIR when SIGNING_SECRET is unset', async () => {
    const t = await emptyTarget('restore_secretfile');
    const r = await runAdminProcess(['restore', '--from', repo, '--json'], { DATABASE_URL: t.db.url, DATA_DIR: t.DATA_DIR });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await readFile(path.join(t.DATA_DIR, 'signing-secret'), 'utf8'), SECRET);
  });

  it('backs up to an S3 prefix and restores from it', async () => {
    const to = `s3://${s3.bucket}/nightly/one`;
    const s3env = { S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_FORCE_PATH_STYLE: 'true' };
    const b = await runAdminProcess(['backup', '--to', to, '--json'], { ...source(), ...s3env });
    assert.equal(b.code, 0, b.stderr);
    const keys = (await s3.objects('nightly/one/')).map((o) => o.key);
    assert.ok(keys.includes('nightly/one/manifest.json'), keys.join(', '));
    assert.equal(keys.filter((k) => k.startsWith('nightly/one/blobs/docs/')).length, 2);
    const t = await emptyTarget('restore_s3');
    const r = await runAdminProcess(['restore', '--from', to, '--json'], {
      DATABASE_URL: t.db.url,
      DATA_DIR: t.DATA_DIR,
      SIGNING_SECRET: SECRET,
      ...s3env,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json().blobs, 2);
    assert.equal(r.json().documents, 2);
  });
});

async function runCopy(from: string, to: string): Promise<void> {
  const { cp } = await import('node:fs/promises');
  await cp(from, to, { recursive: true });
}
