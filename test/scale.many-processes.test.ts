// Many processes on one database, as a scaled deployment runs them: 2 `serve --api-only` (through a
// real pgbouncer in transaction mode) and 2 `worker` processes (direct connections), sharing one
// DATA_DIR as a shared volume would. 200 documents come in through both APIs; afterwards each was
// processed exactly once with no duplicate chunks, each webhook event was delivered once, the rate
// limit held exactly across both APIs, a web session worked on either API, and every scheduled job
// ran once per period, missed periods included (graphile-worker's backfill, raced by both workers).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { createUserWithKey } from '../daemon/src/accounts/create.js';
import { hashPassword } from '../daemon/src/auth/passwords.js';
import { CRONTAB } from '../daemon/src/job-registry.js';
import { until } from './helpers/chaos.js';
import { http } from './helpers/daemon.js';
import { spawnDaemon, type DaemonProcess } from './helpers/daemon-process.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { adminUrl, createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { startPgbouncer, type Pgbouncer } from './helpers/pgbouncer.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const DOCS = 200;
const BATCH = 10;
const PASSWORD = 'correct horse battery staple';
const MINUTE = 60_000;

/** Minutes in (from, to] at which a `M H * * *` or `M * * * *` crontab line fires. */
function firings(line: string, from: Date, to: Date): string[] {
  const [m, h] = line.split(/\s+/);
  const out: string[] = [];
  const t = new Date(Math.floor(from.getTime() / MINUTE) * MINUTE + MINUTE);
  for (; t <= to; t.setTime(t.getTime() + MINUTE))
    if (t.getUTCMinutes() === Number(m) && (h === '*' || t.getUTCHours() === Number(h))) out.push(t.toISOString());
  return out;
}

describe('2 API and 2 worker processes on one database', () => {
  let db: TestDatabase;
  let sql: postgres.Sql;
  let bouncer: Pgbouncer;
  let ollama: FakeOllama;
  let hooks: WebhookReceiver;
  let dataDir: string;
  let apis: DaemonProcess[] = [];
  let workers: DaemonProcess[] = [];
  let started: Date;
  /** When every process was up: a worker's fill window starts at its own start, between `started` and this. */
  let up: Date;
  let lastRun: Date;
  const users: Record<'ingest' | 'limited', { key: string; userId: string; orgId: string; email: string }> = {} as never;

  before(async () => {
    [db, bouncer, ollama, hooks, dataDir] = await Promise.all([
      createTestDatabase('many'),
      startPgbouncer(adminUrl(), { poolSize: 4 }),
      startFakeOllama(),
      startWebhookReceiver(),
      mkdtemp(path.join(os.tmpdir(), 'docsift-many-')),
    ]);
    sql = postgres(db.url, { max: 2, onnotice: () => {} });
    // Every graphile-worker job as it is queued and as it completes (a job row is deleted on success).
    await sql.unsafe(`
      create table test_job_log (event text, identifier text, cron_ts text, document_id text, attempts int);
      create function test_log_job() returns trigger language plpgsql as $$
      declare j record;
      begin
        if tg_op = 'INSERT' then j := new; else j := old; end if;
        insert into test_job_log
          select lower(tg_op), t.identifier, j.payload->'_cron'->>'ts', j.payload->>'documentId', j.attempts
            from graphile_worker._private_tasks t where t.id = j.task_id;
        return null;
      end $$;
      create trigger test_log_job after insert or delete on graphile_worker._private_jobs
        for each row execute function test_log_job();`);
    // Every scheduled job last ran 2.5 hours ago (say, no worker was up meanwhile): starting, both
    // workers race to schedule the missed periods within each job's fill window.
    lastRun = new Date(Date.now() - 150 * MINUTE);
    for (const line of CRONTAB.split('\n').filter((l) => l.includes('fill='))) {
      const identifier = line.split(/\s+/)[5]!;
      await sql`insert into graphile_worker._private_known_crontabs (identifier, known_since, last_execution)
                values (${identifier}, ${new Date(lastRun.getTime() - MINUTE)}, ${lastRun})`;
    }
    const now = new Date();
    for (const [label, tier] of [
      ['ingest', 'pro'],
      ['limited', 'free'],
    ] as const) {
      const email = `${label}-${randomUUID()}@example.test`;
      const r = await createUserWithKey(sql as never, { email, newOrganization: `${label} org`, tier, now });
      users[label] = { key: r.key, userId: r.user.id, orgId: r.organization.id, email };
    }
    await sql`update users set password_hash = ${await hashPassword(PASSWORD)} where id = ${users.ingest.userId}`;

    const env = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123456789abcdef',
      EMBEDDING_PROVIDER: 'ollama',
      OLLAMA_HOST: ollama.url,
      ALLOW_PRIVATE_URLS: 'true',
      DB_POOL_MAX: '4',
      WORKER_CONCURRENCY: '2',
      PORT: '0',
    };
    started = new Date();
    const t0 = Date.now();
    [apis, workers] = await Promise.all([
      Promise.all([0, 1].map(() => spawnDaemon(['serve', '--api-only'], { ...env, DATABASE_POOL_URL: bouncer.url(db.url) }))),
      Promise.all([0, 1].map(() => spawnDaemon(['worker'], { ...env, HEALTH_PORT: '0' }))),
    ]);
    up = new Date();
    process.stderr.write(`[many-processes] 4 processes up in ${Date.now() - t0} ms\n`);
  });
  after(async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    await sql?.end();
    await db?.drop();
    await Promise.all([bouncer?.destroy(), ollama?.close(), hooks?.close(), dataDir && rm(dataDir, { recursive: true, force: true })]);
  });

  it('each worker reports ready on its health endpoint', async () => {
    for (const w of workers) {
      const line = await w.waitForLog((l) => /worker health endpoint/.test(l.msg), 5000, 'the health endpoint');
      assert.equal((await fetch(`${line.url}/healthz`)).status, 200);
      const ready = await fetch(`${line.url}/readyz`);
      assert.equal(ready.status, 200, await ready.text());
    }
  });

  it('200 documents through both APIs: each processed once, no duplicate chunks, each event delivered once', async () => {
    const [a, b] = apis.map((p) => http(p.url)) as [ReturnType<typeof http>, ReturnType<typeof http>];
    const hook = await a('POST', '/api/v1/webhooks/', { key: users.ingest.key, json: { url: hooks.url } });
    assert.equal(hook.status, 201, hook.text);
    hooks.secret = hook.body.secret;
    const col = await b('POST', '/api/v1/collections/', { key: users.ingest.key, json: { name: 'Scaled' } });
    assert.equal(col.status, 201, col.text);

    const batches = Array.from({ length: DOCS / BATCH }, (_, i) => i);
    const uploaded: string[] = [];
    for (let i = 0; i < batches.length; i += 4) {
      const answers = await Promise.all(
        batches.slice(i, i + 4).map((n) => {
          const f = new FormData();
          for (let j = 0; j < BATCH; j++) {
            const id = n * BATCH + j;
            f.append('files', new Blob([`Report ${id}: the number ${id} is discussed at length in this report.\n`]), `report-${id}.txt`);
          }
          return (n % 2 ? b : a)('POST', `/api/v1/collections/${col.body.uuid}/documents/`, { key: users.ingest.key, body: f });
        }),
      );
      for (const r of answers) {
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.total_skipped, 0, r.text);
        uploaded.push(...r.body.uploaded.map((x: { uuid: string }) => x.uuid));
      }
    }
    assert.equal(new Set(uploaded).size, DOCS);

    const deadline = Date.now() + 120_000;
    for (;;) {
      const [c] = await sql<{ pending: number; failed: number }[]>`
        select count(*) filter (where status not in ('indexed', 'failed'))::int as pending,
               count(*) filter (where status = 'failed')::int as failed
          from documents where collection_id = ${col.body.uuid}`;
      assert.equal(c!.failed, 0);
      if (c!.pending === 0) break;
      assert.ok(Date.now() < deadline, `${c!.pending} documents still pending`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const dup = await sql`select document_id, chunk_index from chunks where collection_id = ${col.body.uuid}
                          group by 1, 2 having count(*) > 1`;
    assert.deepEqual([...dup], [], 'no duplicate chunks');
    const counts = await sql<{ n: number }[]>`
      select count(*)::int as n from documents d
       where collection_id = ${col.body.uuid}
         and d.chunks_count <> (select count(*) from chunks c where c.document_id = d.id)`;
    assert.equal(counts[0]!.n, 0, 'every document holds exactly the chunks it counts');
    const runs = await sql<{ document_id: string; queued: number; done: number; attempts: number }[]>`
      select document_id, count(*) filter (where event = 'insert')::int as queued, count(*) filter (where event = 'delete')::int as done,
             max(attempts)::int as attempts
        from test_job_log where identifier = 'process_document' group by document_id`;
    assert.equal(runs.length, DOCS);
    assert.deepEqual(
      runs.filter((r) => r.queued !== 1 || r.done !== 1 || r.attempts !== 1),
      [],
      'each document: one job, run once, at the first attempt',
    );
    const [events] = await sql<{ n: number; docs: number }[]>`
      select count(*)::int as n, count(distinct payload->'data'->>'uuid')::int as docs
        from events where organization_id = ${users.ingest.orgId} and type = 'document.indexed'`;
    assert.deepEqual(events, { n: DOCS, docs: DOCS }, 'one document.indexed event per document');

    await hooks.waitFor(
      (reqs) => new Set(reqs.filter((r) => r.status === 200).map((r) => r.headers['x-service-event-id'])).size >= DOCS,
      60_000,
    );
    // Nothing left to send: every event has its one delivery and no delivery job waits. A receiver
    // sees a delivery before its job's completion commits (and batched indexing sends events in
    // bursts), so wait for the jobs themselves; a retried delivery would still show twice below.
    await until(
      async () => {
        const [left] = await sql<{ n: number }[]>`
          select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_webhook'`;
        return left!.n === 0 ? true : undefined;
      },
      30_000,
      'every webhook delivery job to complete',
    );
    const perEvent = new Map<string, number>();
    for (const r of hooks.requests)
      perEvent.set(String(r.headers['x-service-event-id']), (perEvent.get(String(r.headers['x-service-event-id'])) ?? 0) + 1);
    assert.equal(perEvent.size, DOCS);
    assert.deepEqual(
      [...perEvent].filter(([, n]) => n !== 1),
      [],
      'each event delivered exactly once',
    );
    assert.ok(hooks.requests.every((r) => r.verdict.ok && r.status === 200));
    const deliveries = await sql<{ n: number }[]>`
      select count(*)::int as n from webhook_deliveries where organization_id = ${users.ingest.orgId} group by event_id having count(*) <> 1`;
    assert.deepEqual([...deliveries], [], 'one delivery log row per event');
  });

  it('the rate limit is exact across both APIs', async () => {
    const reqs = Array.from({ length: 24 }, (_, i) => http(apis[i % 2]!.url)('GET', '/api/v1/collections/', { key: users.limited.key }));
    const answers = await Promise.all(reqs);
    assert.deepEqual([...new Set(answers.map((r) => r.status))].sort(), [200, 429]);
    // Per minute window (a burst may straddle a boundary): exactly 10 admitted while requests remain.
    const windows = new Map<string, { ok: number; all: number }>();
    for (const r of answers) {
      const w = windows.get(r.headers.get('x-ratelimit-reset')!) ?? { ok: 0, all: 0 };
      w.all++;
      if (r.status === 200) w.ok++;
      windows.set(r.headers.get('x-ratelimit-reset')!, w);
    }
    for (const [reset, w] of windows) assert.equal(w.ok, Math.min(10, w.all), `window ending ${reset}: ${JSON.stringify(w)}`);
  });

  it('a web session made on one API works on the other, and signing out on one ends it on both', async () => {
    const [a, b] = apis.map((p) => p.url) as [string, string];
    const form = await fetch(`${a}/app/sign-in`);
    const pre = form.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
    assert.ok(token);
    const signIn = await fetch(`${a}/app/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
      body: new URLSearchParams({ _csrf: token, email: users.ingest.email, password: PASSWORD, next: '/app/' }).toString(),
    });
    assert.equal(signIn.status, 303);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const onB = await fetch(`${b}/app/`, { headers: { cookie }, redirect: 'manual' });
    const page = await onB.text();
    assert.equal(onB.status, 200, `signed in on A, the page on B: ${onB.status} ${onB.headers.get('location')}`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    assert.ok(csrf, 'B renders the signed-in layout with its sign-out form');
    const out = await fetch(`${b}/app/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    assert.equal(out.status, 303);
    const afterOut = await fetch(`${a}/app/`, { headers: { cookie }, redirect: 'manual' });
    assert.ok([302, 303].includes(afterOut.status), `signed out on B, the session is gone on A too: ${afterOut.status}`);
    assert.match(afterOut.headers.get('location') ?? '', /^\/app\/sign-in/);
  });

  it('every scheduled job runs once per period, the periods missed before the start included', async () => {
    const now = new Date();
    const log = await sql<{ event: string; identifier: string; cron_ts: string }[]>`
      select event, identifier, cron_ts from test_job_log where cron_ts is not null`;
    const queued = log.filter((l) => l.event === 'insert');
    const twice = Object.entries(
      queued.reduce<Record<string, number>>((acc, l) => {
        const k = `${l.identifier} ${l.cron_ts}`;
        acc[k] = (acc[k] ?? 0) + 1;
        return acc;
      }, {}),
    ).filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no period scheduled twice');
    for (const line of CRONTAB.split('\n').filter((l) => l.includes('fill='))) {
      const identifier = line.split(/\s+/)[5]!;
      const fill = /fill=(\d+)([hd])/.exec(line)!;
      const window = Number(fill[1]) * (fill[2] === 'h' ? 60 : 1440) * MINUTE;
      // A period that fell due between `started` and `up`, less the window, is inside the window of a
      // worker that started early and outside that of one that started late: either is right.
      const since = (t: Date) => new Date(Math.max(lastRun.getTime(), t.getTime() - window) - 1);
      const expected = firings(line, since(up), now).filter((ts) => ts > lastRun.toISOString());
      const either = new Set(firings(line, since(started), since(up)).filter((ts) => ts > lastRun.toISOString()));
      const got = queued
        .filter((l) => l.identifier === identifier)
        .map((l) => new Date(l.cron_ts).toISOString())
        .sort();
      assert.deepEqual(
        got.filter((ts) => !either.has(ts)),
        expected.filter((ts) => !either.has(ts)),
        `${identifier}: one run per period since ${lastRun.toISOString()}`,
      );
    }
    // The missed runs have run (a completed job's row is deleted), each once.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [{ n }] = (await sql`select count(*)::int as n from graphile_worker.jobs where task_identifier in
        ('purge_blobs', 'sweep_orphan_blobs', 'close_invoices', 'rollup_usage') and run_at <= now()`) as unknown as [{ n: number }];
      if (n === 0) break;
      assert.ok(Date.now() < deadline, `${n} scheduled jobs not run`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const done = await sql<{ key: string; n: number }[]>`
      select identifier || ' ' || cron_ts as key, count(*)::int as n from test_job_log
       where cron_ts is not null and event = 'delete' and identifier <> 'fold_text_stats' group by 1`;
    const expectedDone = queued.filter((q) => q.identifier !== 'fold_text_stats').map((q) => `${q.identifier} ${q.cron_ts}`);
    assert.deepEqual(done.map((d) => d.key).sort(), expectedDone.sort(), 'each scheduled run completed');
    assert.ok(done.every((d) => d.n === 1));
    assert.ok(queued.length >= 3, `the hourly jobs each missed at least one period: ${JSON.stringify(queued)}`);
  });
});
