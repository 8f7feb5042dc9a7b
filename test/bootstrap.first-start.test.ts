// First start of the real daemon binary: bootstrap key printed once, graceful SIGTERM, restart
// without a new key, two simultaneous first starts, --api-only / worker split, and the admin CLI.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { http } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY_RE = /svc_[A-Za-z0-9]{40}/g;
// A safety net, not a speed assertion (benchmarks measure speed): two daemons transpiling through tsx, migrating and
// loading the built-in model at once took 9 s on a quiet 2-core machine and over 20 s inside the full suite.
const START_TIMEOUT_MS = 60_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Proc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Resolves once stdout matches; rejects if the process exits first or time runs out. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

const running = new Set<ChildProcess>();

function spawnDaemon(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  const describeProc = () => `\n--- stdout ---\n${out}\n--- stderr ---\n${err}`;
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(re, timeoutMs = START_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = out.match(re);
        if (m) return m;
        if (done) throw new Error(`process exited (${child.exitCode}) before ${re} appeared${describeProc()}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${re}${describeProc()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

/** Runs a short-lived command (admin, bad usage) to completion. */
async function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawnDaemon(args, env);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** Waits for the start banner; the banner is written in one small write, so it arrives whole. */
async function waitForBanner(p: Proc): Promise<{ url: string; keys: string[] }> {
  const m = await p.waitFor(/docsift is running at (\S+)\n[\s\S]*?MCP:[^\n]*\n/);
  return { url: m[1]!, keys: [...new Set(p.stdout().match(KEY_RE) ?? [])] };
}

/** SIGTERM, then the exit code and how long the graceful shutdown took. */
async function terminate(p: Proc): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, ms: Date.now() - started };
}

/** Connections of graphile-worker's job listener on a database: present only where a worker runs. */
async function listenerCount(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and query like 'LISTEN "jobs:insert"%'`;
  return row!.n;
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function baseEnv(databaseUrl: string, dataDir: string, port: number | string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
}

describe('first start of the real daemon', () => {
  let db: TestDatabase;
  let dataDir: string;
  let port: number;
  let env: Record<string, string>;
  let probe: postgres.Sql;
  let bootKey = '';
  let bootKeyUuid = '';

  before(async () => {
    db = await createTestDatabase('boot', { empty: true });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-boot-'));
    port = await freePort();
    env = baseEnv(db.url, dataDir, port);
    probe = postgres(db.url, { max: 1, onnotice: () => {} });
  });
  after(async () => {
    for (const c of running) c.kill('SIGKILL');
    await probe?.end();
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the URL and exactly one key, serves, and stops gracefully on SIGTERM', async () => {
    const p = spawnDaemon(['serve'], env);
    const { url, keys } = await waitForBanner(p);
    assert.equal(url, `http://127.0.0.1:${port}`);
    assert.equal(keys.length, 1, `expected one key in:\n${p.stdout()}`);
    bootKey = keys[0]!;
    // The printed admin command says it needs this daemon's database (run bare, it would find another).
    assert.match(p.stdout(), /admin set-password --email admin@localhost {3}\(with this daemon's DATABASE_URL set\)/);
    const req = http(url);

    const ready = await req('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');

    const list = await req('GET', '/api/v1/keys/', { key: bootKey });
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 1);
    assert.equal(list.body[0].is_full_access, true);
    bootKeyUuid = list.body[0].uuid;

    const wrong = await req('GET', '/api/v1/keys/', { key: 'svc_' + 'Z'.repeat(40) });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'INVALID_API_KEY');

    // Plain `serve` runs the job worker in-process (the positive control for the --api-only check).
    await waitUntil('the worker listens', async () => (await listenerCount(probe)) === 1);

    const { code, ms } = await terminate(p);
    assert.equal(code, 0, p.stderr());
    assert.ok(ms < 5_000, `shutdown took ${ms} ms`);

    // The generated download-link signing secret is kept private under DATA_DIR.
    const secretFile = path.join(dataDir, 'signing-secret');
    assert.match(await readFile(secretFile, 'utf8'), /^[0-9a-f]{64}$/);
    assert.equal((await stat(secretFile)).mode & 0o777, 0o600);
  });

  it('restarts without printing a key; the old key and its data survive', async () => {
    assert.ok(bootKey, 'needs the first start');
    const p = spawnDaemon(['serve'], env);
    try {
      const { url, keys } = await waitForBanner(p);
      assert.deepEqual(keys, [], `no key expected on restart:\n${p.stdout()}`);
      assert.ok(!p.stdout().includes('First API key'));
      const list = await http(url)('GET', '/api/v1/keys/', { key: bootKey });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.map((k: { uuid: string }) => k.uuid),
        [bootKeyUuid],
      );
      const [counts] = await probe<{ users: number; orgs: number }[]>`
        select (select count(*)::int from users) as users, (select count(*)::int from organizations) as orgs`;
      assert.deepEqual({ ...counts }, { users: 1, orgs: 1 });
    } finally {
      assert.equal((await terminate(p)).code, 0, p.stderr());
    }
  });

  // The API-only server stays up for the admin test that follows: each start costs a second or two.
  let apiServer: Proc | undefined;
  let apiUrl = '';

  it('serve --api-only runs no worker, and `worker` runs one without HTTP until SIGTERM', async () => {
    apiServer = spawnDaemon(['serve', '--api-only'], env);
    apiUrl = (await waitForBanner(apiServer)).url;
    assert.equal((await http(apiUrl)('GET', '/readyz')).status, 200);
    assert.equal((await http(apiUrl)('GET', '/api/v1/keys/', { key: bootKey })).status, 200);
    // Checked again below, once the worker subcommand has started and run a job: a worker started
    // (wrongly) by serve --api-only has had all that time to show up.
    assert.equal(await listenerCount(probe), 0, 'serve --api-only must not run the job worker');

    const workerPort = await freePort();
    const worker = spawnDaemon(['worker'], { ...env, PORT: String(workerPort) });
    try {
      await waitUntil('the worker subcommand listens for jobs', async () => (await listenerCount(probe)) === 1, 20_000);
      await assert.rejects(fetch(`http://127.0.0.1:${workerPort}/healthz`), 'worker must not serve HTTP');
      // The worker keeps running and does its work: a job queued now gets done.
      const [job] = await probe<{ id: string }[]>`select id from graphile_worker.add_job('purge_blobs', '{}'::json)`;
      await waitUntil(
        'the worker runs a queued job',
        async () => !(await probe`select 1 from graphile_worker.jobs where id = ${job!.id}`).length,
        20_000,
      );
      assert.equal(worker.child.exitCode, null, 'worker must keep running');
      assert.equal(await listenerCount(probe), 1, 'only the worker subcommand listens: serve --api-only runs no worker');
      assert.doesNotMatch(worker.stdout(), KEY_RE);
    } finally {
      const { code, ms } = await terminate(worker);
      assert.equal(code, 0, worker.stderr());
      assert.ok(ms < 5_000, `worker shutdown took ${ms} ms`);
    }
    assert.equal(await listenerCount(probe), 0);
  });

  it('admin CLI: create-user, set-tier, deactivate-user, and usage errors exit 2', async () => {
    assert.ok(apiServer && apiUrl, 'needs the API-only server');
    const email = 'x@y.example';
    try {
      const [created, ...bad] = await Promise.all([
        runCommand(['admin', 'create-user', '--email', email, '--new-org', 'Acme', '--json'], env),
        runCommand(['admin', 'create-user', '--new-org', 'Acme'], env),
        runCommand(['admin', 'set-tier', '--key', bootKeyUuid, '--tier', 'gold'], env),
        runCommand(['no-such-command'], env),
      ]);
      for (const r of bad) {
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, /docsift-daemon/, 'usage text expected');
      }
      assert.equal(created.code, 0, created.stderr);
      const out = JSON.parse(created.stdout.trim()) as { key: string; email: string; organization_name: string; user_id: string };
      assert.equal(out.email, email);
      assert.equal(out.organization_name, 'Acme');
      assert.match(out.key, /^svc_[A-Za-z0-9]{40}$/);
      const req = http(apiUrl);
      const mine = await req('GET', '/api/v1/keys/', { key: out.key });
      assert.equal(mine.status, 200);
      assert.equal(mine.body.length, 1);
      assert.equal(mine.body[0].rate_tier, 'free');
      const keyUuid: string = mine.body[0].uuid;

      const tier = await runCommand(['admin', 'set-tier', '--key', keyUuid, '--tier', 'pro', '--json'], env);
      assert.equal(tier.code, 0, tier.stderr);
      assert.deepEqual(JSON.parse(tier.stdout.trim()), { key: keyUuid, tier: 'pro' });
      assert.equal((await req('GET', '/api/v1/keys/', { key: out.key })).body[0].rate_tier, 'pro');

      const off = await runCommand(['admin', 'deactivate-user', '--email', email], env);
      assert.equal(off.code, 0, off.stderr);
      const denied = await req('GET', '/api/v1/keys/', { key: out.key });
      assert.equal(denied.status, 401);
      assert.equal(denied.body.code, 'USER_ACCOUNT_DISABLED');
      // Other users are unaffected.
      assert.equal((await req('GET', '/api/v1/keys/', { key: bootKey })).status, 200);
    } finally {
      assert.equal((await terminate(apiServer)).code, 0, apiServer.stderr());
    }
  });
});

describe('two daemons starting at once on one empty database', () => {
  let db: TestDatabase;
  let dataDir: string;
  before(async () => {
    db = await createTestDatabase('race', { empty: true });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-race-'));
  });
  after(async () => {
    for (const c of running) c.kill('SIGKILL');
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('both come up and exactly one key is printed in total', async () => {
    // PORT=0: each binds its own ephemeral port and prints the real one.
    const env = baseEnv(db.url, dataDir, 0);
    const procs = [spawnDaemon(['serve'], env), spawnDaemon(['serve'], env)];
    const started = await Promise.allSettled(procs.map(waitForBanner));
    const failed = started.flatMap((s) => (s.status === 'rejected' ? [(s.reason as Error).message] : []));
    const statuses: number[] = [];
    const keys = started.flatMap((s) => (s.status === 'fulfilled' ? s.value.keys : []));
    for (const s of started) {
      if (s.status !== 'fulfilled') continue;
      const req = http(s.value.url);
      statuses.push((await req('GET', '/readyz')).status, (await req('GET', '/api/v1/keys/', { key: keys[0] ?? '' })).status);
    }
    // Stop both before asserting, so a failure reports the cause rather than a leftover process.
    const exits = await Promise.all(procs.map(terminate));
    assert.deepEqual(failed, [], 'both daemons must start');
    assert.equal(keys.length, 1, procs.map((p) => p.stdout()).join('\n----\n'));
    const urls = started.map((s) => (s.status === 'fulfilled' ? s.value.url : ''));
    for (const url of urls) assert.match(url, /^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    assert.notEqual(urls[0], urls[1]);
    assert.deepEqual(statuses, [200, 200, 200, 200]);
    assert.deepEqual(
      exits.map((e) => e.code),
      [0, 0],
      procs.map((p) => p.stderr()).join('\n'),
    );
  });
});
