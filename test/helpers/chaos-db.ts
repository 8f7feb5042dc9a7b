// Shared parts of the database chaos tests (test/chaos.db-*.test.ts): a tenant set up directly in the private
// database, a load generator that records every answer, and the final "nothing lost, duplicated
// or leaked" check.
import assert from 'node:assert/strict';
import { createSql, type Sql } from '../../daemon/src/db/client.js';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from './fake-ollama-server.js';
import { startPrivatePostgres, type PrivatePostgres } from './private-pg.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

export interface Sample {
  kind: 'upload' | 'search';
  start: number;
  end: number;
  status: number;
  code?: string;
  retryAfter: string | null;
  /** The uploaded document (201). */
  uuid?: string;
  /** A transport failure (connection refused or reset, client timeout): the server died or hung. */
  error?: string;
}

/** Polls `fn` (errors count as "not yet") until it returns a value; `giveUp` names a reason to stop early. */
export async function until<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
  everyMs = 200,
  giveUp: () => string | undefined = () => undefined,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const reason = giveUp();
    if (reason) throw new Error(`gave up waiting for ${what}: ${reason}`);
    const v = await fn().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface ChaosTenant {
  key: string;
  orgId: string;
  collection: string;
}

/** A tenant made directly in the database (the test's own pool), plus a collection and a webhook made over the API. */
export async function setUpTenant(dbUrl: string, apiUrl: string, rx: WebhookReceiver): Promise<ChaosTenant> {
  const sql = createSql(dbUrl, { max: 1 });
  let key: string;
  let orgId: string;
  try {
    const r = await createUserWithKey(sql, { email: `chaos-${Date.now()}@example.test`, newOrganization: 'Chaos', now: new Date() });
    key = r.key;
    orgId = r.organization.id;
  } finally {
    await sql.end();
  }
  const call = (method: string, path: string, json: unknown) =>
    fetch(apiUrl + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }));
  const col = await call('POST', '/api/v1/collections/', { name: 'Chaos' });
  assert.equal(col.status, 201, JSON.stringify(col.body));
  const hook = await call('POST', '/api/v1/webhooks/', { url: rx.url });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  rx.secret = hook.body.secret!;
  return { key, orgId, collection: col.body.uuid! };
}

let seq = 0;
/** Uploads one text document; records the answer. */
export async function upload(apiUrl: string, t: ChaosTenant): Promise<Sample> {
  const n = ++seq;
  const content = Array.from({ length: 6 }, (_, i) => `Chaos document ${n} paragraph ${i}: resilient ingestion survives outages.`).join(
    '\n\n',
  );
  return timed('upload', apiUrl, `/api/v1/collections/${t.collection}/documents/`, t.key, {
    source_type: 'text',
    content,
    title: `chaos ${n}`,
  });
}

export function search(apiUrl: string, t: ChaosTenant): Promise<Sample> {
  return timed('search', apiUrl, '/api/v1/search/', t.key, { query: 'resilient ingestion', mode: 'hybrid' });
}

async function timed(kind: Sample['kind'], apiUrl: string, path: string, key: string, json: unknown): Promise<Sample> {
  const start = Date.now();
  try {
    const res = await fetch(apiUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
      // Far above any acceptable answer time: a request still open by then is a hang.
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json().catch(() => ({}))) as { code?: string; uuid?: string };
    return {
      kind,
      start,
      end: Date.now(),
      status: res.status,
      ...(body.code ? { code: body.code } : {}),
      retryAfter: res.headers.get('retry-after'),
      ...(res.status === 201 && body.uuid ? { uuid: body.uuid } : {}),
    };
  } catch (err) {
    return { kind, start, end: Date.now(), status: 0, retryAfter: null, error: String((err as Error)?.cause ?? err) };
  }
}

/** Uploaders and searchers in a loop until stop(); every answer is kept. */
export function startLoad(apiUrl: string, t: ChaosTenant, opts: { uploaders: number; searchers: number; pauseMs: number }) {
  const samples: Sample[] = [];
  let stopped = false;
  const loop = async (fn: () => Promise<Sample>) => {
    while (!stopped) {
      samples.push(await fn());
      await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
  };
  const loops = [
    ...Array.from({ length: opts.uploaders }, () => loop(() => upload(apiUrl, t))),
    ...Array.from({ length: opts.searchers }, () => loop(() => search(apiUrl, t))),
  ];
  return {
    samples,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** The status of an outage answer: a search's 500 SEARCH_UNAVAILABLE, any other call's 503. */
export const isOutageAnswer = (s: Sample) => s.status === (s.kind === 'search' ? 500 : 503);

/**
 * Every answer was a success or the outage answer: 503 SERVICE_UNAVAILABLE, or for a search the
 * specification's 500 SEARCH_UNAVAILABLE, always with Retry-After (a search has no effect). Never
 * another 5xx, a dropped connection or a hang. Requests for which `mustRetry` holds (made while the
 * database was known to be down) carry Retry-After; a write that lost its connection midway may not
 * (it may have taken effect).
 */
export function assertOnlySuccessOr503(samples: Sample[], mustRetry: (s: Sample) => boolean): void {
  const bad = samples.filter((s) => !(s.status === 200 || s.status === 201 || isOutageAnswer(s)));
  assert.deepEqual(bad, [], 'only 2xx or the outage answer');
  for (const s of samples.filter(isOutageAnswer)) {
    assert.equal(s.code, s.kind === 'search' ? 'SEARCH_UNAVAILABLE' : 'SERVICE_UNAVAILABLE');
    if (s.kind === 'search' || s.retryAfter !== null || mustRetry(s))
      assert.match(s.retryAfter ?? '', /^[1-9][0-9]*$/, `Retry-After in seconds: ${JSON.stringify(s)}`);
  }
}

/**
 * Nothing lost, duplicated or leaked, once processing has caught up: every document of the
 * collection (including any whose upload answer the client never saw) and every one the client was
 * told about ends `indexed` with exactly its own chunks and one document.indexed event, which the
 * webhook receiver got; no job is left locked, dead or queued; no heartbeat of a dead worker is kept
 * alive; the daemon holds no more connections than its pools allow.
 */
export async function assertNothingLost(
  sql: Sql,
  t: ChaosTenant,
  acknowledged: string[],
  rx: WebhookReceiver,
  opts: { liveWorkers: number; maxConnections: number; timeoutMs: number },
): Promise<{ documents: number; indexedAt: number }> {
  await until(
    async () => {
      const [r] = await sql<{ pending: number }[]>`
        select count(*)::int as pending from documents where collection_id = ${t.collection} and status <> 'indexed'`;
      return r!.pending === 0 ? true : undefined;
    },
    opts.timeoutMs,
    'every document to be indexed',
    250,
  ).catch(async (err: Error) => {
    // What is stuck, for whoever reads the failure.
    const docs =
      await sql`select id, status, attempts, error_message from documents where collection_id = ${t.collection} and status <> 'indexed'`;
    const jobs = await sql`
      select j.id, t.identifier, j.attempts, j.max_attempts, j.locked_by, j.locked_at, j.run_at, j.last_error
        from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id`;
    const beats = await sql`select worker_id, last_seen from worker_heartbeats`;
    throw new Error(
      `${err.message}\nnot indexed: ${JSON.stringify(docs)}\njobs: ${JSON.stringify(jobs)}\nheartbeats: ${JSON.stringify(beats)}`,
    );
  });
  const indexedAt = Date.now();
  const docs = await sql<{ id: string; status: string; chunks_count: number; chunks: number; distinct_idx: number; events: number }[]>`
    select d.id, d.status, d.chunks_count,
           (select count(*)::int from chunks c where c.document_id = d.id) as chunks,
           (select count(distinct chunk_index)::int from chunks c where c.document_id = d.id) as distinct_idx,
           (select count(*)::int from events e where e.type = 'document.indexed' and e.payload->'data'->>'uuid' = d.id::text) as events
      from documents d where d.collection_id = ${t.collection}`;
  const byId = new Map(docs.map((d) => [d.id, d]));
  const missing = acknowledged.filter((id) => !byId.has(id));
  assert.deepEqual(missing, [], 'every acknowledged upload exists');
  for (const d of docs) {
    assert.equal(d.status, 'indexed', d.id);
    assert.ok(d.chunks_count >= 1, d.id);
    assert.equal(d.chunks, d.chunks_count, `chunks of ${d.id}`);
    assert.equal(d.distinct_idx, d.chunks_count, `no duplicate chunk of ${d.id}`);
    assert.equal(d.events, 1, `one document.indexed event for ${d.id}`);
  }
  await rx.waitFor((reqs) => {
    const got = new Set(
      reqs.filter((r) => r.verdict.ok && r.status === 200 && r.body?.event === 'document.indexed').map((r) => r.body.data.uuid),
    );
    return docs.every((d) => got.has(d.id));
  }, opts.timeoutMs);

  await until(
    async () => {
      const [j] = await sql<{ locked: number; dead: number; process: number }[]>`
        select count(*) filter (where locked_by is not null)::int as locked,
               count(*) filter (where attempts >= max_attempts)::int as dead,
               count(*) filter (where task_id = (select id from graphile_worker._private_tasks where identifier = 'process_document'))::int as process
          from graphile_worker._private_jobs`;
      return j!.locked === 0 && j!.dead === 0 && j!.process === 0 ? true : undefined;
    },
    opts.timeoutMs,
    'no locked, dead or queued processing job',
  );
  // Heartbeats: the live workers only, none kept alive for a worker that has gone.
  await until(
    async () => {
      const [h] = await sql<{ n: number }[]>`select count(*)::int as n from worker_heartbeats`;
      return h!.n === opts.liveWorkers ? true : undefined;
    },
    opts.timeoutMs,
    `exactly ${opts.liveWorkers} worker heartbeats`,
  );
  const [c] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and application_name <> 'docsift-test'`;
  assert.ok(c!.n <= opts.maxConnections, `${c!.n} connections held, at most ${opts.maxConnections} expected`);
  return { documents: docs.length, indexedAt };
}

/** The test's own connection to the private database (named so the leak check can leave it out). */
export function testSql(url: string): Sql {
  return createSql(url, { max: 1, applicationName: 'docsift-test' });
}

/** The environment of a daemon under database chaos: fast heartbeats and webhook retries, a small pool, no rate limits. */
function chaosDaemonEnv(databaseUrl: string, dataDir: string, ollamaUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SIGNING_SECRET: 'chaos-signing-secret-0123456789abcdef0123456789',
    HOST: '127.0.0.1',
    PORT: '0',
    EMBEDDING_PROVIDER: 'ollama',
    OLLAMA_HOST: ollamaUrl,
    ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_BASE_MS: '500',
    WEBHOOK_TIMEOUT_MS: '2000',
    WORKER_HEARTBEAT_MS: '300',
    WORKER_STALE_MS: '1500',
    WORKER_CONCURRENCY: '2',
    DB_POOL_MAX: '5',
    RATE_LIMITS_ENABLED: 'false',
  };
}

/** What a database-chaos test runs its daemons against: a private cluster, an embedding stand-in, a webhook receiver and a data folder. */
export interface ChaosBed {
  pg: PrivatePostgres;
  ollama: FakeOllama;
  rx: WebhookReceiver;
  dataDir: string;
  /** chaosDaemonEnv for this bed. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startChaosBed(label: string, ollamaOptions: FakeOllamaOptions): Promise<ChaosBed> {
  const pg = await startPrivatePostgres(label);
  const ollama = await startFakeOllama(ollamaOptions);
  const rx = await startWebhookReceiver();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `docsift-${label}-data-`));
  return {
    pg,
    ollama,
    rx,
    dataDir,
    env: chaosDaemonEnv(pg.url, dataDir, ollama.url),
    async close() {
      await pg.destroy();
      await ollama.close();
      await rx.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
