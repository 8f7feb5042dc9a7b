// Point-in-time recovery of the embedded cluster with pgBackRest (PITR_REPO): a real daemon
// provisions its cluster with WAL archiving, `admin pitr-backup` takes a base backup, two files are
// uploaded, and `admin pitr-restore --to` a moment between them brings back a database where the
// first is indexed (its file downloads whole) and the second never existed. Once with a directory
// repository, once with an S3 one (the S3-protocol test server over TLS, which pgBackRest requires).
// pgBackRest is the Debian package `pgbackrest`: `npm test` installs it as root, and without it
// these tests fail saying how to install it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { findPgbackrest } from '../daemon/src/local-pg/pgbackrest.js';
import { stopLocalPostgres } from '../daemon/src/local-pg/provision.js';
import { runAdminProcess } from './helpers/admin-run.js';
import { http } from './helpers/daemon.js';
import { spawnDaemon, type DaemonProcess } from './helpers/daemon-process.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { freePort } from './helpers/private-pg.js';
import { startS3Server, type TestS3 } from './helpers/s3-server.js';

const KEY_RE = /svc_[A-Za-z0-9]{40}/;

function scenario(label: string, repo: (tmp: string) => Promise<Record<string, string>>, firstWithoutArchiving = false) {
  describe(`point-in-time recovery with pgBackRest (${label})`, () => {
    let tmp: string;
    let ollama: FakeOllama;
    let env: Record<string, string>;
    /** The same settings without PITR_REPO and its S3 ones: the first start with them is remembered under DATA_DIR. */
    let later: Record<string, string>;
    let serve: DaemonProcess | undefined;
    let key: string | undefined;

    const start = async (with_ = env) => {
      serve = await spawnDaemon(['serve'], with_, 240_000);
      return http(serve.url);
    };
    const upload = async (req: ReturnType<typeof http>, collection: string, name: string, text: string) => {
      const form = new FormData();
      form.append('file', new Blob([text]), name);
      const r = await req('POST', `/api/v1/collections/${collection}/documents/`, { key, body: form });
      assert.equal(r.status, 201, r.text);
      await waitSettled(req, key!, [r.body.uuid], 120_000);
      return r.body.uuid as string;
    };

    before(async () => {
      findPgbackrest();
      tmp = await mkdtemp(path.join(os.tmpdir(), 'docsift-pitr-'));
      ollama = await startFakeOllama({ dimension: 16 });
      env = {
        DATA_DIR: path.join(tmp, 'data'),
        PG_PORT: String(await freePort()),
        PORT: '0',
        EMBEDDING_PROVIDER: 'ollama',
        OLLAMA_HOST: ollama.url,
        OLLAMA_MODEL: 'nomic-embed-text',
        RATE_LIMITS_ENABLED: 'false',
      };
      const repoSettings = await repo(tmp);
      later = { ...env };
      env = { ...env, ...repoSettings };
    });
    after(async () => {
      await serve?.stop();
      await stopLocalPostgres(path.join(env.DATA_DIR!, 'postgres')).catch(() => {});
      await ollama?.close();
      await rm(tmp, { recursive: true, force: true });
    });

    it('restores to a moment between two uploads: the first is there, the second never was', async () => {
      if (firstWithoutArchiving) {
        // An instance that ran without archiving: turning it on restarts its cluster once.
        await start(later);
        key = KEY_RE.exec(serve!.text.join('\n'))![0];
        await serve!.stop();
      }
      let req = await start();
      key ??= KEY_RE.exec(serve!.text.join('\n'))![0];
      if (firstWithoutArchiving) assert.ok(serve!.logs.some((l) => /to turn on WAL archiving/.test(l.msg)));
      const base = await runAdminProcess(['pitr-backup', '--json'], later);
      assert.equal(base.code, 0, base.stderr);
      assert.equal(base.json().type, 'full');

      const c = await makeCollection(req, key, 'Harbour records');
      const first = await upload(req, c.uuid, 'first.txt', 'The first record describes the lighthouse keeper and the jetty.');
      const password = (await readFile(path.join(env.DATA_DIR!, 'postgres.password'), 'utf8')).trim();
      const sql = postgres({ host: '127.0.0.1', port: Number(env.PG_PORT), user: 'docsift', password, database: 'docsift', max: 1 });
      // A restore starts from a base backup that ended before the target. pgBackRest compares whole
      // seconds (a target in the backup's own stop second finds no backup set): a second later, at least.
      let t: { at: Date } | undefined;
      for (;;) {
        [t] = await sql<{ at: Date }[]>`select clock_timestamp() as at`;
        if (t!.at.getTime() >= Date.parse(base.json().stopped_at) + 1000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await sql.end();
      const second = await upload(req, c.uuid, 'second.txt', 'The second record is about a quarantine of zeppelins.');

      const busy = await runAdminProcess(['pitr-restore', '--to', t!.at.toISOString()], later);
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, /stop every docsift process/);
      const old = await runAdminProcess(['pitr-restore', '--to', new Date(Date.now() - 8 * 86_400_000).toISOString()], later);
      assert.equal(old.code, 1);
      assert.match(old.stderr, /BLOB_RETENTION_DAYS \(7\)/);
      const noZone = await runAdminProcess(['pitr-restore', '--to', '2026-05-01 09:30:00'], later);
      assert.equal(noZone.code, 2);

      await serve!.stop();
      serve = undefined;
      const restored = await runAdminProcess(['pitr-restore', '--to', t!.at.toISOString(), '--json'], later);
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(restored.json().target, t!.at.toISOString());

      req = await start(later);
      assert.match(await readFile(path.join(env.DATA_DIR!, 'postgres', 'docsift.conf'), 'utf8'), /^archive_mode = on$/m);
      const a = await req('GET', `/api/v1/documents/${first}/`, { key });
      assert.equal(a.status, 200, a.text);
      assert.equal(a.body.status, 'indexed');
      const file = await req('GET', `/api/v1/documents/${first}/download/`, { key, redirect: 'follow' });
      assert.equal(file.text, 'The first record describes the lighthouse keeper and the jetty.');
      assert.equal((await req('GET', `/api/v1/documents/${second}/`, { key })).status, 404);
      const found = await req('POST', '/api/v1/search/', { key, json: { query: 'zeppelins quarantine', mode: 'text' } });
      assert.deepEqual(found.body.results, []);
      const kept = await req('POST', '/api/v1/search/', { key, json: { query: 'lighthouse keeper', mode: 'text' } });
      assert.deepEqual(
        kept.body.results.map((r: { document_id: string }) => r.document_id),
        [first],
      );

      const info = await runAdminProcess(['pitr-info', '--json'], later);
      assert.equal(info.code, 0, info.stderr);
      assert.ok(info.json().backups.length >= 1);
      assert.ok(Date.parse(info.json().window.from) <= t!.at.getTime());
    });
  });
}

scenario('a directory repository, turned on for a running instance', async (tmp) => ({ PITR_REPO: path.join(tmp, 'repo') }), true);

let s3: TestS3 | undefined;
after(async () => {
  await s3?.destroy();
});
scenario('an S3 repository over TLS', async (tmp) => {
  const [keyFile, certFile] = [path.join(tmp, 's3.key'), path.join(tmp, 's3.crt')];
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost'].concat([
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ]),
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, `openssl could not make a test certificate: ${made.stderr}`);
  s3 = await startS3Server({ bucket: 'pitr', tls: { key: await readFile(keyFile), cert: await readFile(certFile) } });
  return {
    PITR_REPO: 's3://pitr/docsift',
    PITR_S3_CA_FILE: certFile,
    // pgBackRest matches the certificate by host name, not by address.
    S3_ENDPOINT: s3.endpoint.replace('127.0.0.1', 'localhost'),
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
});
