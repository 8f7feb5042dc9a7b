// The job worker keeps processing after graphile-worker 0.16 gives up on itself, and /readyz says
// so while it does not. Faults are injected with triggers on graphile-worker's own tables in this
// file's database, so they are deterministic and need no database outage.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { testSql, until } from './helpers/chaos-db.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startWebhookReceiver, subscribeReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

describe('job worker supervision', () => {
  let db: TestDatabase;
  let d: TestDaemon;
  let ollama: FakeOllama;
  let t: Tenant;
  let collection: string;
  let req: ReturnType<typeof http>;

  /** Polls /readyz until `match` holds; returns the body that matched. */
  const readyzUntil = (match: (status: number, body: { status: string; reason?: string }) => boolean, what: string) =>
    until(
      async () => {
        const r = await req('GET', '/readyz');
        return match(r.status, r.body) ? r.body : undefined;
      },
      30_000,
      what,
      100,
    );
  const indexed = (uuid: string) =>
    until(
      async () => ((await req('GET', `/api/v1/documents/${uuid}/`, { key: t.key })).body.status === 'indexed' ? true : undefined),
      30_000,
      'the document to be indexed',
    );
  const upload = async (title: string) => {
    const r = await req('POST', `/api/v1/collections/${collection}/documents/`, {
      key: t.key,
      json: { source_type: 'text', content: `Supervised workers keep ingesting: ${title}.`, title },
    });
    assert.equal(r.status, 201, r.text);
    return r.body.uuid as string;
  };

  let rx: WebhookReceiver;

  before(async () => {
    rx = await startWebhookReceiver();
    db = await createTestDatabase('supervision');
    const admin = testSql(db.url);
    try {
      // Only graphile-worker's own connections fail (the API's are named docsift): uploads still enqueue jobs.
      // And only its task-id lookup (a plain insert): its cron ticks insert task ids too, through add_job,
      // and a tick failing would stop the runner for a different reason whenever a minute turned mid-test.
      await admin`
        create function public.injected_fault() returns trigger language plpgsql as $$
        begin
          if current_setting('application_name') <> 'docsift' and current_query() not like '%add_job%' then
            raise exception 'injected fault';
          end if;
          return coalesce(new, old);
        end $$`;
      // graphile-worker looks its task ids up (inserting them) before its first job fetch.
      await admin`create trigger injected_fault before insert on graphile_worker._private_tasks for each statement execute function public.injected_fault()`;
    } finally {
      await admin.end();
    }
    ollama = await startFakeOllama({ dimension: 64 });
    d = await startTestDaemon({
      db,
      worker: true,
      env: {
        EMBEDDING_PROVIDER: 'ollama',
        OLLAMA_HOST: ollama.url,
        WORKER_CONCURRENCY: '1',
        WORKER_HEARTBEAT_MS: '200',
        WORKER_STALE_MS: '1000',
        ALLOW_PRIVATE_URLS: 'true',
      },
    });
    req = http(d.url);
    t = await createTenant(d);
    // Events are stored for an organization with an active webhook (the only reader of them).
    await subscribeReceiver(req, t.key, rx);
    collection = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Supervised' } })).body.uuid;
  });
  after(async () => {
    await d?.close();
    await db?.drop();
    await rx?.close();
    await ollama?.close();
  });

  it('replaces a runner whose job fetches keep failing, and is not ready meanwhile', async () => {
    // graphile-worker caches the failed lookup: every fetch of this runner fails, with its worker alive.
    const body = await readyzUntil((s, b) => s === 503 && b.status === 'worker_not_processing', '/readyz to report the stuck worker');
    assert.match(body.reason ?? '', /cannot fetch jobs: injected fault/);
    const doc = await upload('after a failed lookup');
    await d.deps.sql`drop trigger injected_fault on graphile_worker._private_tasks`;
    await indexed(doc);
    await readyzUntil((s, b) => s === 200 && b.status === 'ready', '/readyz to say ready');
  });

  it('replaces a worker that could not record a job, releases the job and drops its heartbeat', async () => {
    await readyzUntil((s) => s === 200, '/readyz to say ready');
    const [before] = await d.deps.sql<{ worker_id: string }[]>`select worker_id from worker_heartbeats`;
    assert.ok(before, 'the live worker beats');
    // The job's work succeeds, but the worker cannot delete the finished job: it exits ("seppuku").
    await d.deps
      .sql`create trigger injected_fault before delete on graphile_worker._private_jobs for each row execute function public.injected_fault()`;
    const doc = await upload('completion fails');
    await indexed(doc);
    const body = await readyzUntil((s, b) => s === 503 && b.status === 'worker_not_processing', '/readyz to report the exited worker');
    assert.match(body.reason ?? '', /job worker exited/);
    await d.deps.sql`drop trigger injected_fault on graphile_worker._private_jobs`;

    // The job is released at once (not kept locked by a heartbeat nobody answers) and completes.
    await until(
      async () => {
        const jobs = await d.deps.sql`select 1 from graphile_worker.jobs where task_identifier = 'process_document'`;
        return jobs.length === 0 || undefined;
      },
      30_000,
      'the released job to complete',
    );
    await readyzUntil((s, b) => s === 200 && b.status === 'ready', '/readyz to say ready again');
    const beats = await d.deps.sql<{ worker_id: string }[]>`select worker_id from worker_heartbeats`;
    assert.equal(beats.length, 1, 'only the live worker has a heartbeat');
    assert.notEqual(beats[0]!.worker_id, before.worker_id, 'the exited worker was replaced');
    const events = await d.deps.sql`select 1 from events where type = 'document.indexed' and payload->'data'->>'uuid' = ${doc}`;
    assert.equal(events.length, 1, 'indexed exactly once');
    // And it keeps processing.
    await indexed(await upload('after recovery'));
  });
});
