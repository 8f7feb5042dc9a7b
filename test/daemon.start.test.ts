// Starting the real daemon where another one already runs, and the admin commands beside it: a
// daemon whose port is taken runs no job before it exits, and an admin command names the database it
// opened and never provisions a new cluster in place of the daemon's.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { adminCommandLine } from '../daemon/src/admin/database.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Log lines of graphile-worker (component "worker"): any at all means a job worker was started. */
function workerLogLines(output: string): string[] {
  return output.split('\n').filter((l) => l.startsWith('{') && /"component":"worker"/.test(l));
}

describe('daemon start when the port is taken', () => {
  let db: TestDatabase;
  let dataDir: string;
  let holder: net.Server;
  let port: number;
  let probe: postgres.Sql;
  before(async () => {
    db = await createTestDatabase('port_taken');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-port-taken-'));
    holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    port = (holder.address() as net.AddressInfo).port;
    probe = postgres(db.url, { max: 1, onnotice: () => {} });
  });
  after(async () => {
    await new Promise<void>((r) => holder.close(() => r()));
    await probe?.end();
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('exits with EADDRINUSE having started no job worker and run no queued job', async () => {
    // A webhook delivery waiting in the queue: a worker started by the refused daemon would take it.
    const [job] = await probe<{ id: string }[]>`select id from graphile_worker.add_job('purge_blobs', '{}'::json)`;
    const r = await run(['serve'], { DATABASE_URL: db.url, DATA_DIR: dataDir, PORT: String(port) });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout + r.stderr, /EADDRINUSE|address already in use/i);
    assert.deepEqual(workerLogLines(r.stdout + r.stderr), [], 'no job worker may start before the port is bound');
    assert.equal((await probe`select 1 from graphile_worker.jobs where id = ${job!.id}`).length, 1, 'the queued job must still wait');
  });
});

describe('admin commands find the daemon database', () => {
  let db: TestDatabase;
  let dataDir: string;
  before(async () => {
    db = await createTestDatabase('admin_which_db');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-admin-which-'));
  });
  after(async () => {
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('names the database it opened, on stderr, without its password', async () => {
    const r = await run(['admin', 'list-users', '--json'], { DATABASE_URL: db.url, DATA_DIR: dataDir });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), []);
    const where = new URL(db.url);
    assert.match(r.stderr, new RegExp(`database ${where.hostname}:${where.port}/${db.name}`));
    if (where.password) assert.ok(!r.stderr.includes(where.password), 'the password must not be printed');
  });

  it('refuses to provision a new cluster under a DATA_DIR that has none, naming the settings', async () => {
    const empty = path.join(dataDir, 'elsewhere');
    // A port nothing listens on: a wrongly provisioned cluster would start there (and is stopped below).
    const r = await run(['admin', 'list-users'], {
      DATA_DIR: empty,
      PG_PORT: '54419',
    });
    const provisioned = existsSync(path.join(empty, 'postgres'));
    if (provisioned) {
      const { stopLocalPostgres } = await import('../daemon/src/local-pg/provision.js');
      await stopLocalPostgres(path.join(empty, 'postgres'));
    }
    assert.equal(r.code, 1, r.stderr);
    assert.equal(provisioned, false, 'no cluster may be created by an admin command');
    assert.match(r.stderr, new RegExp(`No docsift database under ${empty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(r.stderr, /DATA_DIR/);
    assert.match(r.stderr, /PG_PORT/);
    assert.match(r.stderr, /DATABASE_URL/);
  });
});

describe('the admin command line printed in the start banner', () => {
  it('repeats the DATA_DIR and PG_PORT the daemon was given, so it reaches the same cluster', () => {
    assert.equal(adminCommandLine('set-password --email a@b', {}), 'npm run -s daemon -- admin set-password --email a@b');
    assert.equal(
      adminCommandLine('set-password --email a@b', { DATA_DIR: '/srv/my docsift', PG_PORT: '54999' }),
      "DATA_DIR='/srv/my docsift' PG_PORT=54999 npm run -s daemon -- admin set-password --email a@b",
    );
    assert.equal(
      adminCommandLine('list-users', { DATA_DIR: '/srv/d', DATABASE_URL: 'postgres://u:secret@db/x' }),
      "npm run -s daemon -- admin list-users   (with this daemon's DATABASE_URL set)",
    );
  });
});
