// Starts what the quality benchmark measures: a real `serve` process (API + worker) on a database,
// a user with a key made by the real admin command, and an in-process handle on the same database
// for the deeper Recall@100 queries and for embedding the queries the peers get.
import path from 'node:path';
import postgres from 'postgres';
import { authenticateKey } from '../../../daemon/src/routes/guard.js';
import { loadConfig, resolvedConfig } from '../../../daemon/src/config.js';
import { createLogger } from '../../../daemon/src/logger.js';
import { startDaemon, type Daemon } from '../../../daemon/src/server.js';
import type { Caller } from '../../../daemon/src/types.js';
import { runAdmin } from '../lib/admin-cli.js';
import { benchAdminUrl, startDaemonProcess, type DaemonProcess } from '../lib/env.js';

export const SIGNING_SECRET = 'bench-quality-signing-secret-0123456789abcdef';

export interface DaemonEnvOptions {
  databaseUrl: string;
  dataDir: string;
  provider: 'builtin' | 'ollama' | 'openai';
  workerConcurrency: number;
}

function daemonEnv(o: DaemonEnvOptions): Record<string, string> {
  return {
    DATABASE_URL: o.databaseUrl,
    DATA_DIR: o.dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.QUALITY_LOG_LEVEL ?? 'warn',
    SIGNING_SECRET: SIGNING_SECRET,
    // The provider's own settings (OLLAMA_*, OPENAI_*, EMBEDDING_MODEL…) come from the inherited environment.
    EMBEDDING_PROVIDER: o.provider,
    WORKER_CONCURRENCY: String(o.workerConcurrency),
    NODE_ENV: 'production',
    // Thousands of uploads and searches from one user would trip the per-tier request limits and
    // the plan's search quota; neither is what this measures.
    RATE_LIMITS_ENABLED: 'false',
    METERING_ENABLED: 'false',
  };
}

export function startServe(o: DaemonEnvOptions): Promise<DaemonProcess> {
  return startDaemonProcess({ env: daemonEnv(o), args: ['serve'], logFile: path.join(o.dataDir, 'daemon.log'), readyTimeoutMs: 120_000 });
}

/** `docsift-daemon admin create-user --json`, as an operator would run it. */
export async function createUserKey(o: DaemonEnvOptions, email: string): Promise<string> {
  const r = await runAdmin(daemonEnv(o), ['create-user', '--email', email, '--new-org', 'Quality benchmark']);
  if (r.code !== 0 || !r.result) throw new Error(`admin create-user failed (exit ${r.code}): ${r.stderr}`);
  return (r.result as { key: string }).key;
}

export interface InProcess {
  daemon: Daemon;
  caller: Caller;
  close(): Promise<void>;
}

/** The daemon's deps without HTTP or worker, on the same database and embedding provider as the served one. */
export async function startInProcess(o: DaemonEnvOptions, key: string): Promise<InProcess> {
  const config = loadConfig({ ...process.env, ...daemonEnv(o) });
  const daemon = await startDaemon(resolvedConfig(config), createLogger('warn'), {
    api: false,
    worker: false,
    migrate: false,
  });
  try {
    const caller = await authenticateKey(daemon.deps, `Bearer ${key}`);
    return { daemon, caller, close: () => daemon.stop() };
  } catch (err) {
    await daemon.stop();
    throw err;
  }
}

/**
 * Renames a benchmark database so the sweeps of `npm test` and later benchmarks (which drop
 * databases of dead processes by name) leave it alone; returns its new URL.
 */
export async function keepDatabase(url: string, newName: string): Promise<string> {
  const oldName = new URL(url).pathname.slice(1);
  const admin = postgres(await benchAdminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`alter database "${oldName}" rename to "${newName}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = '/' + newName;
  return u.toString();
}
