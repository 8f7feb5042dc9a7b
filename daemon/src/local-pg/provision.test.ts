import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { findPgBinDir, hasPgvector } from './binaries.js';
import { ensureLocalPostgres, memorySettings, stopLocalPostgres } from './provision.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs ensureLocalPostgres in a separate node process; resolves to its result and log lines. */
function provisionInChild(dataDir: string, port: number): Promise<{ databaseUrl: string; logs: string[] }> {
  const modulePath = fileURLToPath(new URL('./provision.ts', import.meta.url));
  const code = `
    import { ensureLocalPostgres } from ${JSON.stringify(modulePath)};
    const logs = [];
    const r = await ensureLocalPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${port}, log: (m) => logs.push(m) });
    process.stdout.write(JSON.stringify({ databaseUrl: r.databaseUrl, logs }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${status}: ${err}`))));
  });
}

async function vectorVersion(databaseUrl: string): Promise<string> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ extversion: string }[]>`select extversion from pg_extension where extname = 'vector'`;
    await sql`select '[1,2,3]'::vector <-> '[1,2,4]'::vector as d`;
    return row?.extversion ?? '';
  } finally {
    await sql.end();
  }
}

describe('local PostgreSQL provisioning', () => {
  let tmp = '';
  const clusters: string[] = [];

  before(async () => {
    tmp = await mkdtemp('/tmp/docsift-provision-test-');
  });
  after(async () => {
    for (const dir of clusters) await stopLocalPostgres(dir).catch(() => {});
    await rm(tmp, { recursive: true, force: true });
  });

  it('finds server binaries with pgvector', () => {
    const binDir = findPgBinDir();
    assert.ok(binDir, 'no PostgreSQL server binaries on this machine');
    assert.equal(hasPgvector(binDir), true);
  });

  it('explains what to do when PostgreSQL cannot be provisioned', async () => {
    await assert.rejects(
      ensureLocalPostgres({ dataDir: path.join(tmp, 'none'), pgBinDir: path.join(tmp, 'no-such-bin') }),
      (err: Error) => {
        assert.match(err.message, /DATABASE_URL/);
        assert.match(err.message, /postgres:\/\/user:pass@host:5432\/docsift/);
        assert.match(err.message, /docker compose up/);
        return true;
      },
    );
    // A custom build without pgvector: never auto-installed, the error says what to do instead.
    const fakeBin = path.join(tmp, 'fake-bin');
    await mkdir(path.join(tmp, 'fake-share', 'extension'), { recursive: true });
    await mkdir(fakeBin);
    for (const tool of ['postgres', 'initdb', 'pg_ctl']) await writeFile(path.join(fakeBin, tool), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    await writeFile(path.join(fakeBin, 'pg_config'), `#!/bin/sh\necho ${path.join(tmp, 'fake-share')}\n`, { mode: 0o755 });
    assert.equal(hasPgvector(fakeBin), false);
    await assert.rejects(
      ensureLocalPostgres({ dataDir: path.join(tmp, 'none'), pgBinDir: fakeBin }),
      /pgvector is not installed[\s\S]*DATABASE_URL[\s\S]*docker compose up/,
    );
  });

  it('creates, starts and reuses a cluster with pgvector', async () => {
    const dataDir = path.join(tmp, 'pg');
    const port = await freePort();
    clusters.push(dataDir);
    const logs: string[] = [];
    const first = await ensureLocalPostgres({ dataDir, port, database: 'docsift_t', log: (m) => logs.push(m) });
    assert.equal(first.port, port);
    assert.equal(first.dataDir, dataDir);
    assert.match(first.databaseUrl, new RegExp(`^postgres://docsift:[A-Za-z0-9_-]+@127\\.0\\.0\\.1:${port}/docsift_t$`));
    assert.ok(
      logs.some((l) => l.startsWith('initialising')),
      logs.join('\n'),
    );
    assert.match(await vectorVersion(first.databaseUrl), /^\d+\.\d+\.\d+$/);

    const started = Date.now();
    const again = await ensureLocalPostgres({ dataDir, port, database: 'docsift_t' });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 3000, `second call took ${elapsed} ms`);
    assert.equal(again.databaseUrl, first.databaseUrl);

    // After a stop the next call only restarts the server: same cluster, same password.
    assert.equal(await stopLocalPostgres(dataDir), true);
    assert.equal(await stopLocalPostgres(dataDir), false);
    const restartLogs: string[] = [];
    const restarted = await ensureLocalPostgres({ dataDir, port, database: 'docsift_t', log: (m) => restartLogs.push(m) });
    assert.equal(restarted.databaseUrl, first.databaseUrl);
    assert.ok(!restartLogs.some((l) => l.startsWith('initialising')), restartLogs.join('\n'));
    assert.ok(
      restartLogs.some((l) => l.startsWith('starting')),
      restartLogs.join('\n'),
    );
    assert.match(await vectorVersion(restarted.databaseUrl), /^\d+\.\d+\.\d+$/);
  });

  it('initialises only once when two processes provision the same directory at once', async () => {
    const dataDir = path.join(tmp, 'pg-concurrent');
    const port = await freePort();
    clusters.push(dataDir);
    const [a, b] = await Promise.all([provisionInChild(dataDir, port), provisionInChild(dataDir, port)]);
    assert.equal(a.databaseUrl, b.databaseUrl);
    const inits = [...a.logs, ...b.logs].filter((l) => l.startsWith('initialising'));
    assert.equal(inits.length, 1, JSON.stringify({ a: a.logs, b: b.logs }));
    assert.match(await vectorVersion(a.databaseUrl), /^\d+\.\d+\.\d+$/);
  });
});

describe('local PostgreSQL memory settings', () => {
  const gb = 2 ** 30;
  it('gives shared_buffers an eighth of the memory, from 128 MB up to 2 GB, and the planner half as cache', () => {
    assert.deepEqual(memorySettings(1 * gb), { shared_buffers: "'128MB'", effective_cache_size: "'1024MB'" });
    assert.deepEqual(memorySettings(4 * gb), { shared_buffers: "'512MB'", effective_cache_size: "'2048MB'" });
    assert.deepEqual(memorySettings(24 * gb), { shared_buffers: "'2048MB'", effective_cache_size: "'12288MB'" });
    assert.deepEqual(memorySettings(0.5 * gb), { shared_buffers: "'128MB'", effective_cache_size: "'1024MB'" });
  });
});
