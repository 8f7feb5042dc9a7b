// Provisions docsift's embedded default database: a private PostgreSQL cluster with pgvector,
// used when no DATABASE_URL is configured. Files it manages:
//   <dataDir>/               the cluster; owned by the postgres OS user when docsift runs as root
//                            (postgres refuses to run as root), else by the current user
//   <dataDir>/docsift.conf   settings docsift owns, included from postgresql.conf; its presence
//                            marks a finished setup
//   <dataDir>/log/           server logs, one file per weekday, overwritten weekly
//   <dataDir>/startup.log    pg_ctl output before the logging collector takes over
//   <dataDir>.password       password of superuser "docsift", mode 0600, owned by whoever runs
//                            docsift; kept outside the cluster so postgres itself never needs it
//   <dataDir>.lock           held while provisioning so two processes never initdb at once
// The server is started detached by pg_ctl and keeps running after the daemon exits, so later
// starts are fast; stopLocalPostgres() stops it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { appendFile, chmod, chown, mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { binDirForCluster, ensureBinaries, findPgBinDir } from './binaries.js';
import { acquireLock } from './lock.js';
import { ensureArchiving, prepareArchiving } from './pgbackrest.js';
import type { PitrSettings } from './pitr-settings.js';
import { makeRunner, makeTraversable, pgRun, type Log, type Runner } from './run.js';

export interface LocalPostgresOptions {
  dataDir: string;
  port?: number;
  database?: string;
  log?: Log;
  pgBinDir?: string;
  /** WAL archiving and base backups through pgBackRest (PITR_REPO): configured at every start. */
  pitr?: PitrSettings;
}
export interface LocalPostgres {
  databaseUrl: string;
  port: number;
  dataDir: string;
}

const superuser = 'docsift';

export async function ensureLocalPostgres(opts: LocalPostgresOptions): Promise<LocalPostgres> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const port = opts.port ?? 54329;
  const database = opts.database ?? 'docsift';
  await mkdir(path.dirname(dataDir), { recursive: true });
  const release = await acquireLock(`${dataDir}.lock`, log);
  try {
    const binDir = await ensureBinaries(opts.pgBinDir, log);
    const runner = await makeRunner(log);
    if (runner.asPostgres) await makeTraversable(path.dirname(dataDir), runner, log);
    const archive = opts.pitr ? await prepareArchiving(opts.pitr, { dataDir, port }, runner, log) : {};
    const password = await ensureCluster(binDir, dataDir, port, runner, log, archive);
    const actualPort = await ensureRunning(binDir, dataDir, port, runner, log);
    await ensureDatabase(actualPort, password, database, log);
    if (opts.pitr) {
      if (actualPort !== port) await prepareArchiving(opts.pitr, { dataDir, port: actualPort }, runner, log);
      await ensureArchiving(opts.pitr, { dataDir, port: actualPort, password }, binDir, runner, log);
    }
    const databaseUrl = `postgres://${superuser}:${password}@127.0.0.1:${actualPort}/${encodeURIComponent(database)}`;
    return { databaseUrl, port: actualPort, dataDir };
  } finally {
    await release();
  }
}

/** Stops the cluster in dataDir if it is running; resolves to whether it was running. */
export async function stopLocalPostgres(dataDir: string, opts: { pgBinDir?: string; log?: Log } = {}): Promise<boolean> {
  const log = opts.log ?? (() => {});
  dataDir = path.resolve(dataDir);
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return false;
  const release = await acquireLock(`${dataDir}.lock`, log);
  try {
    const binDir = opts.pgBinDir ?? (await binDirForCluster(dataDir)) ?? findPgBinDir();
    if (!binDir) throw new Error(`no PostgreSQL binaries found to stop the cluster in ${dataDir}`);
    const runner = await makeRunner(log);
    const status = await pgRun(runner, path.join(binDir, 'pg_ctl'), ['status', '-D', dataDir]);
    if (status.code !== 0) return false;
    log(`stopping PostgreSQL in ${dataDir}`);
    await pgRun(runner, path.join(binDir, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60'], true);
    return true;
  } finally {
    await release();
  }
}

async function ensureCluster(
  binDir: string,
  dataDir: string,
  port: number,
  runner: Runner,
  log: Log,
  extra: Record<string, string>,
): Promise<string> {
  const pwFile = `${dataDir}.password`;
  const confFile = path.join(dataDir, 'docsift.conf');
  const entries = await readdir(dataDir).catch(() => undefined);
  if (entries?.includes('docsift.conf')) {
    const password = (await readFile(pwFile, 'utf8').catch(() => '')).trim();
    if (!password)
      throw new Error(`password file ${pwFile} for the cluster in ${dataDir} is missing; restore it or remove ${dataDir} to start over`);
    await writeConfig(confFile, dataDir, port, runner, log, extra);
    return password;
  }
  if (entries && entries.length > 0) {
    throw new Error(`${dataDir} is not empty but was not set up by docsift (no docsift.conf); remove it or choose another data directory`);
  }
  // Saved before initdb so a crash right after initdb cannot lose it.
  const password = randomBytes(24).toString('base64url');
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  await chown(dataDir, runner.uid, runner.gid);
  // initdb reads the password from a file the postgres user can open; it lives only for initdb.
  const initPw = `${dataDir}.initdb-pw`;
  await writeFile(initPw, password, { mode: 0o600 });
  await chown(initPw, runner.uid, runner.gid);
  log(`initialising PostgreSQL cluster in ${dataDir}`);
  const initdb = path.join(binDir, 'initdb');
  const args = [
    '-D',
    dataDir,
    '-U',
    superuser,
    `--pwfile=${initPw}`,
    '--auth-local=peer',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-instructions',
  ];
  try {
    const first = await pgRun(runner, initdb, [...args, '--locale=C.UTF-8']);
    // Some minimal images lack a C.UTF-8 locale; plain C sorts bytewise, which is fine for docsift.
    if (first.code !== 0) await pgRun(runner, initdb, [...args, '--locale=C'], true);
  } finally {
    await unlink(initPw).catch(() => {});
  }
  await appendFile(path.join(dataDir, 'postgresql.conf'), "\n# settings managed by docsift\ninclude_if_exists = 'docsift.conf'\n");
  await writeConfig(confFile, dataDir, port, runner, log, extra);
  return password;
}

/**
 * shared_buffers an eighth of the machine's memory (PostgreSQL's guidance is a quarter on a
 * dedicated server; here the daemon, its worker and the page cache share it), between 128 MB and
 * 2 GB: with 256 MB a million-chunk load left most dirty pages for the backends to write out.
 */
export function memorySettings(totalBytes: number): { shared_buffers: string; effective_cache_size: string } {
  const mb = Math.floor(totalBytes / 2 ** 20);
  const shared = Math.min(2048, Math.max(128, Math.floor(mb / 8 / 128) * 128));
  const cache = Math.max(1024, Math.floor(mb / 2 / 1024) * 1024);
  return { shared_buffers: `'${shared}MB'`, effective_cache_size: `'${cache}MB'` };
}

async function writeConfig(
  confFile: string,
  dataDir: string,
  port: number,
  runner: Runner,
  log: Log,
  extra: Record<string, string>,
): Promise<void> {
  const quote = (v: string): string => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  // Unix socket paths are limited to 107 bytes; docsift connects over TCP anyway.
  const socketDir = `${dataDir}/.s.PGSQL.${port}`.length < 100 ? dataDir : '';
  const settings: Record<string, string | number> = {
    listen_addresses: quote('127.0.0.1'),
    port,
    unix_socket_directories: quote(socketDir),
    // Modest sizes for a small (2-core) machine shared with the daemon and its workers.
    max_connections: 100,
    ...memorySettings(os.totalmem()),
    work_mem: quote('16MB'),
    maintenance_work_mem: quote('256MB'), // HNSW index builds are much faster when the graph fits
    // A bulk ingest writes about 13 KB of WAL per chunk: with 1 GB every ~80k chunks forced a
    // checkpoint, and the full-page images after each one doubled the WAL (pgtune's defaults).
    max_wal_size: quote('4GB'),
    checkpoint_timeout: quote('15min'),
    max_parallel_workers_per_gather: 1,
    max_parallel_maintenance_workers: 1,
    random_page_cost: 1.1,
    logging_collector: 'on',
    log_directory: quote('log'),
    log_filename: quote('postgresql-%a.log'),
    log_truncate_on_rotation: 'on',
    log_rotation_age: quote('1d'),
    log_rotation_size: 0,
    ...extra,
  };
  const text = `# Written by docsift (daemon/src/local-pg/provision.ts); rewritten on start; override with ALTER SYSTEM.\n${Object.entries(
    settings,
  )
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n')}\n`;
  if ((await readFile(confFile, 'utf8').catch(() => '')) === text) return;
  if (fs.existsSync(confFile)) log(`updated ${confFile}; changes apply on the next PostgreSQL restart`);
  await writeFile(confFile, text, { mode: 0o600 });
  await chown(confFile, runner.uid, runner.gid);
}

async function ensureRunning(binDir: string, dataDir: string, port: number, runner: Runner, log: Log): Promise<number> {
  const pgCtl = path.join(binDir, 'pg_ctl');
  const status = await pgRun(runner, pgCtl, ['status', '-D', dataDir]);
  if (status.code !== 0) {
    log(`starting PostgreSQL on 127.0.0.1:${port} (data in ${dataDir}; it keeps running after docsift exits)`);
    const logFile = path.join(dataDir, 'startup.log');
    const start = await pgRun(runner, pgCtl, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60']);
    if (start.code !== 0) {
      const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
      throw new Error(`could not start PostgreSQL in ${dataDir}: ${start.stderr.trim()}\n${tail}`);
    }
  }
  // Line 4 of postmaster.pid is the port the running server actually listens on.
  const pid = await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8');
  const actual = Number(pid.split('\n')[3]);
  if (!actual) throw new Error(`cannot read the port from ${dataDir}/postmaster.pid`);
  if (actual !== port)
    log(`PostgreSQL in ${dataDir} is already running on port ${actual}, not ${port}; using ${actual} until it is restarted`);
  return actual;
}

async function ensureDatabase(port: number, password: string, database: string, log: Log): Promise<void> {
  const connect = (db: string): postgres.Sql =>
    postgres({ host: '127.0.0.1', port, user: superuser, password, database: db, max: 1, connect_timeout: 10, onnotice: () => {} });
  let sql = connect(database);
  try {
    try {
      await sql`create extension if not exists vector`;
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '3D000') throw err; // 3D000: database does not exist
    }
    await sql.end();
    const admin = connect('postgres');
    try {
      log(`creating database ${database}`);
      await admin`create database ${admin(database)}`;
    } finally {
      await admin.end();
    }
    sql = connect(database);
    await sql`create extension if not exists vector`;
  } finally {
    await sql.end();
  }
}
