// STORAGE=s3 when the store is wrong or gone, against a real S3 server (s3rver): a clear error at
// start-up naming the setting to fix, or UPLOAD_FAILED with nothing half-written, never a document
// row without its file. s3rver does not verify signatures, so "wrong credentials" here is an
// access key id the store does not know (a wrong secret key would go unnoticed by s3rver).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { S3_PART_BYTES } from '../daemon/src/storage/s3.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { spawnDaemon } from './helpers/daemon-process.js';
import { makeCollection } from './helpers/docs.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { freePort } from './helpers/private-pg.js';
import { startS3Server, type TestS3 } from './helpers/s3-server.js';

const MiB = 1024 * 1024;

describe('S3 storage misconfigured or unreachable', () => {
  let s3: TestS3;
  let db: TestDatabase;

  before(async () => {
    [s3, db] = await Promise.all([startS3Server(), createTestDatabase('s3_bad')]);
  });
  after(async () => {
    await db?.drop();
    await s3?.destroy();
  });

  const refusesToStart = async (env: Record<string, string>, message: RegExp) => {
    await assert.rejects(startTestDaemon({ db, env: s3.env(env) }), (err: Error) => {
      assert.match(err.message, message);
      return true;
    });
  };

  it('a bucket that does not exist: the daemon refuses to start, naming S3_BUCKET', async () => {
    await refusesToStart({ S3_BUCKET: 'no-such-bucket' }, /bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+ does not exist.*S3_BUCKET/);
  });

  it('credentials the store does not know: the daemon refuses to start, naming the key settings', async () => {
    await refusesToStart({ S3_ACCESS_KEY_ID: 'WRONGKEY' }, /S3 refused access to bucket .*S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY/);
  });

  it('no store listening at S3_ENDPOINT: the daemon refuses to start, naming S3_ENDPOINT', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    await refusesToStart({ S3_ENDPOINT: endpoint }, /S3 storage is unreachable: .*ECONNREFUSED.*S3_ENDPOINT/);
  });

  it('as a process: `serve` exits with status 1 and prints the reason, no stack trace', async () => {
    const p = spawnDaemon(['serve', '--api-only'], {
      ...s3.env({ S3_BUCKET: 'missing-bucket' }),
      DATABASE_URL: db.url,
      PORT: '0',
      DATA_DIR: `/tmp/docsift-s3-bad-${randomUUID()}`,
      SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123456789abcdef',
    });
    await assert.rejects(p, (err: Error) => {
      assert.match(err.message, /exited \(\{"code":1,"signal":null\}\)/);
      assert.match(err.message, /docsift-daemon: S3 bucket "missing-bucket" at .* does not exist: create it or fix S3_BUCKET\./);
      assert.doesNotMatch(err.message, /\n\s+at /, 'no stack trace');
      return true;
    });
  });

  describe('the store goes down while the daemon runs', () => {
    let down: TestS3;
    let d: TestDaemon;
    let t: Tenant;
    let req: ReturnType<typeof http>;
    let collection: string;

    before(async () => {
      down = await startS3Server({ bucket: 'flaky' });
      d = await startTestDaemon({ label: 's3_down', env: down.env() });
      t = await createTenant(d, 's3down');
      req = http(d.url);
      collection = (await makeCollection(req, t.key, 'Flaky store')).uuid;
    });
    after(async () => {
      await d?.close();
      await down?.destroy();
    });

    const upload = (name: string, body: string) => {
      const f = new FormData();
      f.append('file', new Blob([body], { type: 'text/plain' }), name);
      return req('POST', `/api/v1/collections/${collection}/documents/`, { key: t.key, body: f });
    };
    const rows = async () => (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from documents`)[0]!.n;

    it('upload answers 500 UPLOAD_FAILED and writes no document; download answers 503; the rest of the API carries on', async () => {
      const kept = await upload('kept.txt', 'stored before the outage');
      assert.equal(kept.status, 201, kept.text);
      await down.stop();
      try {
        const before = await rows();
        const r = await upload('lost.txt', 'written while the store is down');
        assert.equal(r.status, 500, r.text);
        assert.equal(r.body.code, 'UPLOAD_FAILED');
        // Nothing was stored and the store may come back: clients (SDK, CLI) retry after this.
        assert.equal(r.headers.get('retry-after'), '5');
        assert.equal(await rows(), before, 'no document row without its file');

        const dl = await req('GET', `/api/v1/documents/${kept.body.uuid}/download/`, { key: t.key });
        assert.equal(dl.status, 503, dl.text);
        assert.equal(dl.body.code, 'SERVICE_UNAVAILABLE');
        assert.match(dl.body.error, /file store/);
        assert.equal(dl.headers.get('retry-after'), '5');

        // A refused S3 connection is not a database outage: the API keeps answering.
        assert.equal((await req('GET', '/api/v1/collections/', { key: t.key })).status, 200);
        assert.equal((await req('GET', `/api/v1/documents/${kept.body.uuid}/`, { key: t.key })).status, 200);
        assert.equal((await fetch(`${d.url}/readyz`)).status, 200);
      } finally {
        await down.start();
      }
      const again = await upload('after.txt', 'the store is back');
      assert.equal(again.status, 201, again.text);
      assert.equal((await req('GET', `/api/v1/documents/${kept.body.uuid}/download/`, { key: t.key })).status, 302);
    });

    it('the store dies in the middle of a multipart upload: UPLOAD_FAILED, no row, no object', async () => {
      const before = await rows();
      const objectsBefore = (await down.objects()).length;
      const first = down.requests.length;
      const acked = () => down.requests.slice(first).some((r) => r.method === 'PUT' && r.query.has('partNumber') && r.status === 200);
      const boundary = `----docsift${randomUUID()}`;
      const total = 3 * S3_PART_BYTES;
      let sent = 0;
      let stopped = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === 0) {
            controller.enqueue(
              Buffer.from(
                `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\nContent-Type: text/plain\r\n\r\n`,
              ),
            );
            sent = 1;
            return;
          }
          if (sent >= total) {
            controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
            controller.close();
            return;
          }
          // Once the first part is in the store, the store goes away; the rest of the file follows.
          if (sent > S3_PART_BYTES + MiB && !stopped) {
            await down.waitForRequest(acked, 30_000, 'the first part');
            await down.stop();
            stopped = true;
          }
          controller.enqueue(Buffer.alloc(MiB, 'x'));
          sent += MiB;
        },
      });
      try {
        const res = await fetch(`${d.url}/api/v1/collections/${collection}/documents/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
          body,
          duplex: 'half',
        } as RequestInit);
        const answer = (await res.json()) as { code: string };
        assert.ok(stopped, 'the store was stopped mid-upload');
        assert.equal(res.status, 500, JSON.stringify(answer));
        assert.equal(answer.code, 'UPLOAD_FAILED');
        assert.equal(res.headers.get('retry-after'), '5');
      } finally {
        await down.start();
      }
      assert.equal(await rows(), before, 'no document row');
      assert.equal((await down.objects()).length, objectsBefore, 'no object (the multipart upload never completed)');
    });
  });
});
