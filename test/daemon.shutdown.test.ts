// SIGTERM to a real `serve` process: the API stops accepting requests at once (in-flight ones
// finish; a keep-alive socket closes after its current response), the worker claims no new job,
// an extraction in progress is stopped, and the process exits within 10 s plus the longest
// request still in flight. What was accepted is indexed exactly once; what was refused left nothing.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createUserWithKey } from '../daemon/src/accounts/create.js';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { until } from './helpers/chaos-db.js';
import { spawnDaemon, type DaemonProcess, type LogLine } from './helpers/daemon-process.js';
import { manyPagePdf } from './helpers/hostile-files.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

interface Upload {
  n: number;
  start: number;
  end: number;
  status: number;
  uuid?: string;
  error?: string;
}

const logTime = (l: LogLine) => Date.parse(l.time);

describe('daemon: graceful shutdown on SIGTERM', () => {
  let db: TestDatabase;
  let sql: Sql;
  let dataDir: string;
  let key: string;
  const env = () => ({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    SIGNING_SECRET: 'shutdown-signing-secret-0123456789abcdef0123456789',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'debug',
    RATE_LIMITS_ENABLED: 'false',
    WORKER_CONCURRENCY: '2',
    EXTRACT_MAX_PDF_PAGES: '100000',
  });

  before(async () => {
    db = await createTestDatabase('shutdown');
    sql = createSql(db.url, { max: 2 });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-shutdown-'));
    key = (await createUserWithKey(sql, { email: 'shutdown@example.test', newOrganization: 'Shutdown', now: new Date() })).key;
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const collection = async (url: string, name: string) => {
    const r = await fetch(`${url}/api/v1/collections/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    assert.equal(r.status, 201);
    return ((await r.json()) as { uuid: string }).uuid;
  };

  it('mid batch upload: new requests are refused at once, accepted ones are indexed exactly once, exit within 10 s', async (ctx) => {
    let serve: DaemonProcess | undefined = await spawnDaemon(['serve'], env());
    try {
      const coll = await collection(serve.url, 'Batch');
      const uploads: Upload[] = [];
      let next = 0;
      let signalled = false;
      // Four uploaders on keep-alive sockets, as `docs sync` does, each until the daemon refuses it after the signal.
      const loop = async () => {
        for (;;) {
          const n = ++next;
          if (n > 400) return;
          const form = new FormData();
          form.append('files', new Blob([`Shutdown document ${n}: the heron waits by the weir.`], { type: 'text/plain' }), `doc-${n}.txt`);
          const u: Upload = { n, start: Date.now(), end: 0, status: 0 };
          try {
            const r = await fetch(`${serve!.url}/api/v1/collections/${coll}/documents/`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}` },
              body: form,
              signal: AbortSignal.timeout(30_000),
            });
            u.status = r.status;
            const body = (await r.json().catch(() => ({}))) as { uploaded?: { uuid: string }[] };
            if (r.status === 201) u.uuid = body.uploaded?.[0]?.uuid;
          } catch (err) {
            u.error = String((err as Error).cause ?? err);
          }
          u.end = Date.now();
          uploads.push(u);
          if (signalled && u.status !== 201) return;
        }
      };
      const loops = Promise.all([loop(), loop(), loop(), loop()]);
      await until(async () => uploads.filter((u) => u.status === 201).length >= 40 || undefined, 60_000, '40 accepted uploads');
      const signalledAt = Date.now();
      serve.child.kill('SIGTERM');
      signalled = true;
      const shuttingDown = await serve.waitForLog((l) => l.msg === 'shutting down gracefully', 10_000, 'the shutdown log line');
      const seenAt = Date.now();
      await until(async () => serve!.exited() ?? undefined, 60_000, 'the daemon to exit');
      const exitMs = Date.now() - signalledAt;
      await loops;

      assert.deepEqual(serve.exited(), { code: 0, signal: null }, 'a clean exit');
      const inFlight = uploads.filter((u) => u.start <= signalledAt && u.end >= signalledAt);
      const longest = Math.max(0, ...inFlight.map((u) => u.end - signalledAt));
      assert.ok(exitMs <= 10_000 + longest, `exited ${exitMs} ms after SIGTERM (longest request in flight: ${longest} ms)`);
      // Refused once the daemon knew: no request started after the log line was seen was accepted.
      const late = uploads.filter((u) => u.start > seenAt);
      assert.ok(late.length >= 1, 'requests were made after the signal');
      assert.deepEqual(
        late.filter((u) => u.status === 201),
        [],
        'no request accepted after the signal',
      );
      for (const u of uploads.filter((x) => x.status !== 201))
        assert.ok(u.status === 503 || (u.status === 0 && u.error), `refused as 503 or a closed connection: ${JSON.stringify(u)}`);
      // The worker claimed no job after the signal.
      const claimedAfter = serve.logs.filter((l) => /^Found task/.test(l.msg) && logTime(l) > logTime(shuttingDown));
      assert.deepEqual(
        claimedAfter.map((l) => l.msg),
        [],
        'no job claimed after the signal',
      );

      // Another daemon indexes what was accepted: each once, and nothing that was refused.
      const firstServe = serve;
      serve = await spawnDaemon(['serve'], env());
      const accepted = uploads.filter((u) => u.status === 201);
      await until(
        async () => {
          const [r] = await sql<
            { n: number }[]
          >`select count(*)::int as n from documents where collection_id = ${coll} and status <> 'indexed'`;
          return r!.n === 0 || undefined;
        },
        120_000,
        'every accepted document indexed',
      );
      const docs = await sql<{ id: string; original_filename: string; chunks: number }[]>`
        select d.id, d.original_filename, (select count(*)::int from chunks c where c.document_id = d.id) as chunks
          from documents d where d.collection_id = ${coll}`;
      assert.deepEqual(docs.map((d) => d.id).sort(), accepted.map((u) => u.uuid!).sort(), 'exactly the accepted uploads exist');
      assert.deepEqual(
        docs.map((d) => d.original_filename).sort(),
        accepted.map((u) => `doc-${u.n}.txt`).sort(),
        'no refused upload left a document',
      );
      for (const d of docs) assert.equal(d.chunks, 1, `${d.original_filename} indexed once`);
      const stopped = JSON.stringify(firstServe.logs.find((l) => /^stopped/.test(l.msg)) ?? {});
      ctx.diagnostic(
        `exit ${exitMs} ms after SIGTERM (${stopped}); ${accepted.length} uploads accepted, ${uploads.length - accepted.length} refused ` +
          `(${uploads.filter((u) => u.status === 503).length} as 503, the rest at the connection)`,
      );
    } finally {
      await serve?.kill9();
    }
  });

  it('mid extraction: the extraction thread is stopped, the process exits within 10 s, the document waits for the next worker', async (ctx) => {
    const serve: DaemonProcess | undefined = await spawnDaemon(['serve'], env());
    try {
      const coll = await collection(serve.url, 'Slow');
      const form = new FormData();
      // Tens of seconds of extraction at least (about 6 ms a page on an idle machine).
      form.append('files', new Blob([new Uint8Array(manyPagePdf(20_000))], { type: 'application/pdf' }), 'slow.pdf');
      const r = await fetch(`${serve.url}/api/v1/collections/${coll}/documents/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      assert.equal(r.status, 201);
      const id = ((await r.json()) as { uploaded: { uuid: string }[] }).uploaded[0]!.uuid;
      await serve.waitForLog((l) => /^Found task \d+ \(process_document\)/.test(l.msg), 30_000, 'the processing job to start');
      const t0 = Date.now();
      serve.child.kill('SIGTERM');
      await until(async () => serve!.exited() ?? undefined, 60_000, 'the daemon to exit');
      const exitMs = Date.now() - t0;
      assert.deepEqual(serve.exited(), { code: 0, signal: null });
      assert.ok(exitMs <= 10_000, `exited ${exitMs} ms after SIGTERM`);
      const [doc] = await sql<{ status: string; attempts: number }[]>`select status, attempts from documents where id = ${id}`;
      assert.equal(doc!.status, 'pending', 'not failed by the shutdown');
      const jobs = await sql<{ attempts: number; locked_by: string | null }[]>`
        select attempts, locked_by from graphile_worker._private_jobs where payload ->> 'documentId' = ${id}`;
      assert.deepEqual([...jobs], [{ attempts: 0, locked_by: null }], 'its job waits, unlocked, the stopped attempt given back');
      ctx.diagnostic(`exit ${exitMs} ms after SIGTERM, mid extraction`);
    } finally {
      await serve?.kill9();
    }
  });
});
