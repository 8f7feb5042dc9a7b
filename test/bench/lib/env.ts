// Environment for benchmarks: the local test PostgreSQL (test/helpers/cluster.ts, as for `npm test`), fresh
// migrated databases, and daemons run as real child processes so their memory can be measured
// on their own.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { dropStaleDatabases, migrateDatabase, repoRoot, testClusterAdminUrl } from '../../helpers/cluster.js';
import { withDatabase } from '../../helpers/pg.js';

export { repoRoot };

let adminUrlPromise: Promise<string> | undefined;

/** Admin URL of the test cluster: the one `npm test` uses (test/helpers/cluster.ts). */
export function benchAdminUrl(): Promise<string> {
  adminUrlPromise ??= testClusterAdminUrl((m) => process.stderr.write(`[bench-pg] ${m}\n`));
  return adminUrlPromise;
}

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
  /**
   * Renames the database out of the stale-database sweep's pattern (its name carries this process's
   * pid, so the next test or benchmark run would drop it once this process exits); returns its new URL.
   */
  keep(): Promise<string>;
}

/**
 * A fresh, migrated database. Its name carries this process's pid in the pattern scripts/test.ts
 * already sweeps, so a benchmark killed before cleanup leaves nothing behind for long.
 */
export async function benchDatabase(label: string): Promise<BenchDatabase> {
  const adminUrl = await benchAdminUrl();
  const safe = label
    .replace(/[^a-z0-9_]/gi, '_')
    .toLowerCase()
    .slice(0, 24);
  const name = `bench_${safe}_p${process.pid.toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await dropStaleDatabases(admin);
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const drop = async () => {
    const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await a.unsafe(`drop database if exists "${name}" with (force)`);
    } finally {
      await a.end();
    }
  };
  try {
    await migrateDatabase(url);
  } catch (err) {
    await drop().catch(() => {});
    throw err;
  }
  const keep = async () => {
    const kept = `kept_${safe}_${randomBytes(4).toString('hex')}`;
    const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await a.unsafe(`alter database "${name}" rename to "${kept}"`);
    } finally {
      await a.end();
    }
    return withDatabase(adminUrl, kept);
  };
  return { name, url, drop, keep };
}

/** A temporary directory and its removal. */
export async function benchTempDir(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `docsift-bench-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface DaemonProcess {
  /** Base URL from the startup banner (undefined for `worker`, which has no HTTP). */
  url: string | undefined;
  pid: number;
  /** False once the process has exited (for whatever reason). */
  readonly running: boolean;
  /** Combined stdout/stderr of the process. */
  logFile: string;
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
  /** Last lines of the log, for error reports. */
  logTail(lines?: number): Promise<string>;
}

export interface StartDaemonOptions {
  /** Extra environment on top of process.env (DATABASE_URL, DATA_DIR, …). */
  env: Record<string, string>;
  /** main.ts arguments, e.g. ['serve', '--api-only'] or ['worker']. */
  args: string[];
  /** Where the process log goes. */
  logFile: string;
  /** Extra node options before the script, e.g. ['--cpu-prof']. */
  nodeArgs?: string[];
  /** Checkout whose daemon/src/main.ts runs (default: this one), e.g. main's, to compare two daemons on one database. */
  cwd?: string;
  /** How long to wait for the banner (serve) or for the process to stay up (others). */
  readyTimeoutMs?: number;
}

/** Spawns `node --import tsx daemon/src/main.ts <args>`; for `serve`, waits for the banner URL. */
export async function startDaemonProcess(opts: StartDaemonOptions): Promise<DaemonProcess> {
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  const child: ChildProcess = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', 'daemon/src/main.ts', ...opts.args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start daemon ${opts.args.join(' ')}`);
  const pid = child.pid;
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  child.stderr!.pipe(log, { end: false });
  const isServe = opts.args[0] === 'serve';
  const url = await new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`daemon ${opts.args.join(' ')} not ready after ${opts.readyTimeoutMs ?? 60_000} ms (log: ${opts.logFile})`)),
      opts.readyTimeoutMs ?? 60_000,
    );
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      log.write(d);
      if (!isServe) return;
      buf += d.toString('utf8');
      const m = /docsift is running at (\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        buf = '';
        resolve(m[1]);
      }
    });
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`daemon ${opts.args.join(' ')} exited during startup (log: ${opts.logFile})`));
    });
    if (!isServe) {
      clearTimeout(timer);
      resolve(undefined);
    }
  }).catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exit;
    log.end();
    throw err;
  });
  return {
    url,
    pid,
    get running() {
      return !exited;
    },
    logFile: opts.logFile,
    async stop(graceMs = 15_000) {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exit;
        clearTimeout(timer);
      }
      log.end();
    },
    async logTail(lines = 30) {
      const text = await readFile(opts.logFile, 'utf8').catch(() => '');
      return text.split('\n').slice(-lines).join('\n');
    },
  };
}

/** Runs a bench script's `main`: exits with the code it returns (0 for none), or prints its error and exits 1. */
export function runMain(main: () => Promise<unknown>): void {
  main().then(
    (code) => process.exit(typeof code === 'number' ? code : 0),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
