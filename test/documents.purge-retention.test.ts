// BLOB_RETENTION_DAYS is how long purge_blobs keeps a deleted document's file, and the recovery
// window of point-in-time restores (pgBackRest keeps backups that long; pitr-restore refuses older
// moments): one setting, so a restore inside the window always finds its rows' files.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../daemon/src/config.js';
import { purgeBlobs } from '../daemon/src/documents/purge-blobs.js';
import { pgbackrestConf, pitrSettings } from '../daemon/src/local-pg/pitr-settings.js';
import { createTenant, http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { makeCollection } from './helpers/docs.js';

const DAY = 86_400_000;

describe('BLOB_RETENTION_DAYS ties the blob purge to the recovery window', () => {
  let d: TestDaemon;
  let offsetMs = 0;
  before(async () => {
    d = await startTestDaemon({
      label: 'purge_retention',
      env: { BLOB_RETENTION_DAYS: '3' },
      clock: { now: () => new Date(Date.now() + offsetMs) },
    });
  });
  after(async () => {
    await d?.close();
  });

  const purgeAt = async (days: number) => {
    offsetMs = days * DAY;
    try {
      return await purgeBlobs(d.deps);
    } finally {
      offsetMs = 0;
    }
  };

  it('keeps a deleted document’s file for BLOB_RETENTION_DAYS, then purges it', async () => {
    const t = await createTenant(d, 'retention');
    const req = http(d.url);
    const c = await makeCollection(req, t.key, 'Kept three days');
    const form = new FormData();
    form.append('file', new Blob(['a file kept three days']), 'kept.txt');
    const up = await req('POST', `/api/v1/collections/${c.uuid}/documents/`, { key: t.key, body: form });
    assert.equal(up.status, 201, up.text);
    assert.equal((await req('DELETE', `/api/v1/documents/${up.body.uuid}/`, { key: t.key })).status, 204);
    assert.equal((await purgeAt(2.9)).documents, 0);
    assert.equal((await purgeAt(3.01)).documents, 1);
  });

  it('is pgBackRest’s retention, and refuses PITR_REPO beside DATABASE_URL', () => {
    const config = loadConfig({ BLOB_RETENTION_DAYS: '3', PITR_REPO: '/srv/pitr', DATA_DIR: '/srv/docsift' });
    const s = pitrSettings(config)!;
    assert.equal(s.retentionDays, 3);
    const conf = pgbackrestConf(s, { dataDir: '/srv/docsift/postgres', port: 54329 });
    assert.match(conf, /^repo1-retention-full-type=time$/m);
    assert.match(conf, /^repo1-retention-full=3$/m);
    assert.match(conf, /^repo1-path=\/srv\/pitr$/m);
    assert.throws(
      () => loadConfig({ PITR_REPO: '/srv/pitr', DATABASE_URL: 'postgres://u:p@db/docsift' }),
      /PITR_REPO: archives the embedded/,
    );
    assert.throws(() => pitrSettings(loadConfig({ PITR_REPO: 's3://b/p', S3_ENDPOINT: 'http://minio:9000' })), /https S3_ENDPOINT/);
  });
});
