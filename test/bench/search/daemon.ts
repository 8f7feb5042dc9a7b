// The daemon under test: `serve --api-only` as a child process (no worker, so no cron job or
// indexing competes with the searches), on the benchmark database.
import path from 'node:path';
import { startDaemonProcess, type DaemonProcess } from '../lib/env.js';

export interface DaemonSetup {
  databaseUrl: string;
  dataDir: string;
  /** ollama = the benchmark's embedding stand-in; builtin = the real USE-lite model */
  provider: { kind: 'ollama'; host: string; model: string } | { kind: 'builtin' };
  /** production middleware (per-user rate limits, request log, plan quota); off by default */
  metering?: boolean;
  label: string;
  /** DATABASE_READ_URL: searches go to this replica. */
  readUrl?: string;
  /** Extra node options (e.g. --cpu-prof) and another checkout to run the daemon from (search/kept.ts). */
  nodeArgs?: string[];
  cwd?: string;
}

export function startSearchDaemon(s: DaemonSetup): Promise<DaemonProcess> {
  const env: Record<string, string> = {
    DATABASE_URL: s.databaseUrl,
    DATA_DIR: s.dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    SIGNING_SECRET: 'bench-search-signing-secret-0123456789abcdef',
    EMBEDDING_PROVIDER: s.provider.kind,
    // Rate limits (pro tier: 300/min) would refuse a throughput run, and the quota counter is one hot
    // row per organization; a separate scenario measures what they cost.
    RATE_LIMITS_ENABLED: s.metering ? 'true' : 'false',
    METERING_ENABLED: s.metering ? 'true' : 'false',
  };
  if (s.readUrl) env.DATABASE_READ_URL = s.readUrl;
  if (s.provider.kind === 'ollama') Object.assign(env, { OLLAMA_HOST: s.provider.host, OLLAMA_MODEL: s.provider.model });
  return startDaemonProcess({
    env,
    args: ['serve', '--api-only'],
    nodeArgs: s.nodeArgs,
    cwd: s.cwd,
    logFile: path.join(s.dataDir, `daemon-${s.label}.log`),
    readyTimeoutMs: 120_000,
  });
}
