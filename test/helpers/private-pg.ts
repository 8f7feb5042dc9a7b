// A PostgreSQL cluster private to one test file, for faults that must never touch the shared test
// cluster (stopping or restarting the server). Set up by the daemon's own provisioning code in a
// temporary directory on a free port, migrated like a fresh install, and removed afterwards.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createSql } from '../../daemon/src/db/client.js';
import { migrate } from '../../daemon/src/db/migrate.js';
import { findPgBinDir } from '../../daemon/src/local-pg/binaries.js';
import { ensureLocalPostgres } from '../../daemon/src/local-pg/provision.js';
import { createLogger } from '../../daemon/src/logger.js';
import { migrateWorkerSchema } from '../../daemon/src/worker/runner.js';

export interface PrivatePostgres {
  url: string;
  port: number;
  dataDir: string;
  /** `pg_ctl stop -m fast`: every connection is cut, new ones are refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** Stops the server and deletes the cluster. */
  destroy(): Promise<void>;
}

/** A port nobody listens on right now (the kernel picks it; the cluster binds it moments later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export function pgCtl(binDir: string, args: string[]): Promise<void> {
  const cmd = path.join(binDir, 'pg_ctl');
  // PostgreSQL refuses to run as root; provisioning made the postgres user own the cluster then.
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    execFile(file, argv, { cwd: '/' }, (err, _stdout, stderr) =>
      err ? reject(new Error(`pg_ctl ${args[0]} failed: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}

export async function startPrivatePostgres(label: string): Promise<PrivatePostgres> {
  const root = await mkdtemp(path.join(os.tmpdir(), `docsift-${label}-`));
  const dataDir = path.join(root, 'pg');
  const binDir = findPgBinDir();
  if (!binDir) throw new Error('no PostgreSQL server binaries found');
  const { databaseUrl, port } = await ensureLocalPostgres({ dataDir, port: await freePort(), database: 'docsift' });
  const sql = createSql(databaseUrl, { max: 2 });
  try {
    await migrate(sql);
  } finally {
    await sql.end();
  }
  await migrateWorkerSchema(databaseUrl, createLogger('warn'));
  const logFile = path.join(dataDir, 'startup.log');
  return {
    url: databaseUrl,
    port,
    dataDir,
    stop: () => pgCtl(binDir, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60']),
    start: () => pgCtl(binDir, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60']),
    restart: () => pgCtl(binDir, ['restart', '-D', dataDir, '-l', logFile, '-m', 'fast', '-w', '-t', '60']),
    async destroy() {
      await pgCtl(binDir, ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', '60']).catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}
