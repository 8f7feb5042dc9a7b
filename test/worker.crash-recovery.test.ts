import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { startWebhookReceiver, subscribeReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function startWorkerProcess(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', 'worker'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  return child;
}

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('worker killed mid-job', () => {
  let d: TestDaemon;
  let ollama: Awaited<ReturnType<typeof startFakeOllama>>;
  const children: ChildProcess[] = [];
  let rx: WebhookReceiver;
  before(async () => {
    rx = await startWebhookReceiver();
    ollama = await startFakeOllama({ dimension: 64, delayMs: 60_000 });
    d = await startTestDaemon({
      label: 'crash',
      worker: false,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, ALLOW_PRIVATE_URLS: 'true' },
    });
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await d?.close();
    await rx?.close();
    await ollama?.close();
  });

  /** A worker process on the test database with fast heartbeats, so a dead one is noticed in 1.5 s. */
  const workerEnv = (): Record<string, string> => ({
    DATABASE_URL: d.db.url,
    EMBEDDING_PROVIDER: 'ollama',
    OLLAMA_HOST: ollama.url,
    LOG_LEVEL: 'warn',
    DATA_DIR: d.dataDir,
    SIGNING_SECRET: d.config.SIGNING_SECRET!,
    WORKER_HEARTBEAT_MS: '300',
    WORKER_STALE_MS: '1500',
    ALLOW_PRIVATE_URLS: 'true',
    NODE_ENV: 'test',
  });

  it('ends with the document indexed exactly once', async () => {
    const t = await createTenant(d);
    const req = http(d.url);
    // Events are stored for an organization with an active webhook (the only reader of them).
    await subscribeReceiver(req, t.key, rx);
    const col = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Crash' } })).body;
    const text = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} about resilient workers and idempotent jobs.`).join('\n\n');
    const up = await req('POST', `/api/v1/collections/${col.uuid}/documents/`, {
      key: t.key,
      json: { source_type: 'text', content: text, title: 'crash' },
    });
    assert.equal(up.status, 201);
    const env = workerEnv();

    // First worker takes the job and hangs inside embedding (the stand-in delays its answer).
    const first = startWorkerProcess(env);
    children.push(first);
    await until(async () => (ollama.requests > 0 ? true : undefined), 30_000, 'the first embed request');
    const locked = await d.deps.sql<
      { locked_by: string | null; attempts: number }[]
    >`select locked_by, attempts from graphile_worker._private_jobs`;
    assert.equal(locked.length, 1);
    assert.ok(locked[0]!.locked_by, 'job is locked by the first worker');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    // A new worker must notice the dead one, release its job and finish it.
    ollama.setDelay(0);
    const second = startWorkerProcess(env);
    children.push(second);
    const doc = await until(
      async () => {
        const r = await req('GET', `/api/v1/documents/${up.body.uuid}/`, { key: t.key });
        return r.body.status === 'indexed' ? r.body : undefined;
      },
      45_000,
      'indexed',
    );
    const rows = await d.deps.sql<{ n: number; distinct_idx: number }[]>`
      select count(*)::int as n, count(distinct chunk_index)::int as distinct_idx from chunks where document_id = ${up.body.uuid}`;
    assert.equal(rows[0]!.n, doc.chunks_count);
    assert.equal(rows[0]!.distinct_idx, doc.chunks_count);
    assert.ok(doc.chunks_count >= 1);
    const events = await d.deps.sql`select 1 from events where type = 'document.indexed' and payload->'data'->>'uuid' = ${up.body.uuid}`;
    assert.equal(events.length, 1, 'exactly one indexed event');
    await rx.waitFor((reqs) => reqs.some((r) => r.body?.data?.uuid === up.body.uuid));
    await until(
      async () => ((await d.deps.sql`select 1 from graphile_worker._private_jobs`).length === 0 ? true : undefined),
      15_000,
      'the processing and delivery jobs completed and removed',
    );
    assert.equal(rx.accepted().filter((r) => r.body.data.uuid === up.body.uuid).length, 1, 'delivered once');
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  });

  it('mid-batch: every document indexed exactly once, no job, lock or heartbeat of the dead worker left behind', async () => {
    const t = await createTenant(d);
    const req = http(d.url);
    await subscribeReceiver(req, t.key, rx);
    const col = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Crash batch' } })).body;
    const ids: string[] = [];
    // Small documents are indexed in batches of up to 32 per transaction (documents/batch-claim.ts), and
    // one embedding call serves a batch of these one-chunk documents: 40 make two batches, one per
    // worker slot, so one can be written while the other is stuck, claimed jobs locked, when the worker dies.
    for (let n = 0; n < 40; n++) {
      const text = Array.from({ length: 12 }, (_, i) => `Batch document ${n}, paragraph ${i}: workers die, documents do not.`).join('\n\n');
      const up = await req('POST', `/api/v1/collections/${col.uuid}/documents/`, {
        key: t.key,
        json: { source_type: 'text', content: text, title: `batch ${n}` },
      });
      assert.equal(up.status, 201);
      ids.push(up.body.uuid);
    }
    const env = { ...workerEnv(), WORKER_CONCURRENCY: '2' };
    // The first worker gets one embedding answer (one batch), then every later request hangs: it stalls in the middle of
    // the upload whatever its speed (switching the delay on after seeing documents indexed raced a fast worker to the end).
    ollama.setDelay(0);
    ollama.stallAfter(1, 60_000);
    const first = startWorkerProcess(env);
    children.push(first);
    await until(
      async () => {
        const [r] = await d.deps.sql<
          { n: number }[]
        >`select count(*)::int as n from documents where id = any(${ids}::uuid[]) and status = 'indexed'`;
        return r!.n >= 1 ? true : undefined;
      },
      30_000,
      'part of the batch',
    );
    await until(
      async () => {
        const [r] = await d.deps.sql<
          { n: number }[]
        >`select count(*)::int as n from graphile_worker._private_jobs where locked_by is not null`;
        return r!.n > 0 ? true : undefined;
      },
      30_000,
      'a job in progress',
    );
    const [indexedBefore] = await d.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from documents where id = any(${ids}::uuid[]) and status = 'indexed'`;
    assert.ok(indexedBefore!.n < ids.length, 'the first worker died mid-batch, not after it');
    const [dead] = await d.deps.sql<{ worker_id: string }[]>`select worker_id from worker_heartbeats limit 1`;
    assert.ok(dead, 'the first worker heart-beats');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    ollama.stallAfter(0, 0); // no stall for the second worker
    const second = startWorkerProcess(env);
    children.push(second);
    await until(
      async () => {
        const [r] = await d.deps.sql<
          { n: number }[]
        >`select count(*)::int as n from documents where id = any(${ids}::uuid[]) and status = 'indexed'`;
        return r!.n === ids.length ? true : undefined;
      },
      45_000,
      'the whole batch indexed',
    );
    for (const id of ids) {
      const [c] = await d.deps.sql<{ n: number; distinct_idx: number; count: number }[]>`
        select count(*)::int as n, count(distinct chunk_index)::int as distinct_idx,
               (select chunks_count from documents where id = ${id}) as count
          from chunks where document_id = ${id}`;
      assert.ok(c!.count >= 1);
      assert.equal(c!.n, c!.count, `chunks of ${id}`);
      assert.equal(c!.distinct_idx, c!.count, `no duplicate chunk of ${id}`);
      const events = await d.deps.sql`select 1 from events where type = 'document.indexed' and payload->'data'->>'uuid' = ${id}`;
      assert.equal(events.length, 1, `one indexed event for ${id}`);
    }
    await until(
      async () => {
        const jobs = await d.deps
          .sql`select 1 from graphile_worker.jobs where task_identifier = 'process_document' or locked_by is not null`;
        const beats = await d.deps.sql`select 1 from worker_heartbeats where worker_id = ${dead.worker_id}`;
        return jobs.length === 0 && beats.length === 0 ? true : undefined;
      },
      15_000,
      "no job left and the dead worker's heartbeat gone",
    );
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
    const beats = await d.deps.sql`select 1 from worker_heartbeats`;
    assert.equal(beats.length, 0, 'a worker that stops cleanly removes its heartbeats');
  });
});
