// The daemon's only entry point with side effects: reads env, provisions, starts, handles signals.
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { startDaemon } from './server.js';
import { startWorkerHealth } from './worker/health.js';
import { bootstrap } from './accounts/create.js';
import { runAdmin, ADMIN_USAGE } from './admin.js';
import { ensureLocalPostgres } from './db/provision.js';
import { createSql } from './db/client.js';
import { migrate } from './db/migrate.js';
import { migrateWorkerSchema } from './worker/runner.js';
import { systemClock } from './types.js';
import { createEmbeddingProvider, embeddingConfigFrom } from './embeddings/index.js';
import { reembedAll } from './documents/reembed.js';
import { isDatabaseUnavailable } from './db/availability.js';

const USAGE = `docsift-daemon <command> [options]

Commands:
  serve [--api-only]   Start the API server and, unless --api-only, the job worker (default)
  worker               Run job workers only (no HTTP)
  migrate              Apply database migrations and exit
  reembed              Re-process every document with the configured embedding model
                       (required after changing EMBEDDING_PROVIDER, the model or EMBEDDING_DIMENSIONS)
  admin <subcommand>   Administrative tasks (run "admin --help")
  help                 Show this help

Configuration comes from environment variables; see README.md.`;

async function resolveDatabaseUrl(config: Config, logger: Logger): Promise<string> {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  const started = Date.now();
  const { databaseUrl } = await ensureLocalPostgres({
    dataDir: path.join(config.DATA_DIR, 'postgres'),
    port: config.PG_PORT,
    database: 'docsift',
    log: (msg) => logger.info({ component: 'provision' }, msg),
  });
  logger.info({ ms: Date.now() - started }, 'local PostgreSQL ready');
  return databaseUrl;
}

/** Download-link signing secret: from env, else generated once and kept under DATA_DIR. */
async function resolveSigningSecret(config: Config): Promise<string> {
  if (config.SIGNING_SECRET) return config.SIGNING_SECRET;
  const file = path.join(config.DATA_DIR, 'signing-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    await mkdir(config.DATA_DIR, { recursive: true });
    // Written whole to a temp file, then linked into place: a concurrent starter either wins the
    // link or reads the complete secret of the one that did.
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, randomBytes(32).toString('hex'), { mode: 0o600 });
    await link(tmp, file).catch(() => {});
    await unlink(tmp).catch(() => {});
    return (await readFile(file, 'utf8')).trim();
  }
}

async function serveCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'api-only': { type: 'boolean', default: false } }, allowPositionals: false });
  const databaseUrl = await resolveDatabaseUrl(config, logger);
  const signingSecret = await resolveSigningSecret(config);
  const full = { ...config, DATABASE_URL: databaseUrl, SIGNING_SECRET: signingSecret };
  const daemon = await startDaemon(full, logger, { api: true, worker: !values['api-only'] });
  const boot = await bootstrap(daemon.deps.sql, {
    email: process.env.DOCSIFT_ADMIN_EMAIL ?? 'admin@localhost',
    orgName: 'Default',
    now: daemon.deps.clock.now(),
  });
  const lines = [
    ``,
    `docsift is running at ${daemon.url}`,
    `  API:     ${daemon.url}/api/v1/`,
    `  Schema:  ${daemon.url}/api/v1/schema/`,
    `  MCP:     ${daemon.url}/mcp`,
    `  Web UI:  ${daemon.url}/app/`,
  ];
  if (boot.created && boot.key) {
    lines.push(
      ``,
      `First API key (full access, shown once; store it now):`,
      ``,
      `  ${boot.key}`,
      ``,
      `Try: curl -H "Authorization: Bearer ${boot.key}" ${daemon.url}/api/v1/keys/`,
      `Web UI sign-in for ${boot.user?.email}: set a password with`,
      `  npm run -s daemon -- admin set-password --email ${boot.user?.email}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n\n');
  stopDaemon = daemon.stop;
}

async function workerCommand(config: Config, logger: Logger): Promise<void> {
  const databaseUrl = await resolveDatabaseUrl(config, logger);
  const signingSecret = await resolveSigningSecret(config);
  const daemon = await startDaemon({ ...config, DATABASE_URL: databaseUrl, SIGNING_SECRET: signingSecret }, logger, {
    api: false,
    worker: true,
  });
  let health: { url: string; close(): Promise<void> } | undefined;
  if (config.HEALTH_PORT !== undefined) {
    health = await startWorkerHealth(daemon, config.HOST, config.HEALTH_PORT);
    logger.info({ url: health.url }, 'worker health endpoint listening (GET /healthz, /readyz)');
  }
  logger.info('worker running');
  stopDaemon = async () => {
    await health?.close();
    await daemon.stop();
  };
}

async function migrateCommand(config: Config, logger: Logger): Promise<void> {
  const databaseUrl = await resolveDatabaseUrl(config, logger);
  const sql = createSql(databaseUrl, { max: 2 });
  try {
    const applied = await migrate(sql, (m) => logger.info(m));
    await migrateWorkerSchema(databaseUrl, logger);
    process.stdout.write(applied.length ? `Applied ${applied.length} migration(s).\n` : 'Database is up to date.\n');
  } finally {
    await sql.end();
  }
}

/**
 * Installed before startup begins, so a signal during provisioning or migration still ends the
 * process cleanly; once running, `stop` is graceful.
 */
let stopDaemon: (() => Promise<void>) | undefined;

function installSignalHandlers(logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down gracefully');
    (stopDaemon ?? (async () => {}))().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

// Errors of an I/O object (a socket, a stream, a database connection) that reached the event loop
// because nothing listened for them: they end that object, not the process's shared state.
const IO_ERROR_CODES = /^(E[A-Z]+|ERR_STREAM_[A-Z_]+|ERR_SOCKET_[A-Z_]+|UND_ERR_[A-Z_]+)$/;

function isIoError(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return true;
  const e = err as { code?: unknown; syscall?: unknown } | null;
  return !!e && typeof e === 'object' && (typeof e.syscall === 'string' || (typeof e.code === 'string' && IO_ERROR_CODES.test(e.code)));
}

/**
 * What a long-running process (serve, worker) does with an error nobody handled.
 *
 * - unhandledRejection: logged; the process keeps serving. A rejected promise that nobody awaited
 *   unwinds no stack: the operation it belonged to has ended, and every change to shared state is made
 *   in a PostgreSQL transaction, so nothing half-done is left in memory. The known sources are
 *   graphile-worker's internal promise chains when its cron tick cannot reach the database (the
 *   supervisor in worker/supervisor.ts replaces that runner) and connection errors during an outage.
 * - uncaughtException of an I/O error (a socket or stream error event without a listener, a lost
 *   database connection): logged; the process keeps serving. Only that socket, stream or connection is
 *   affected, and each of those is recreated on next use.
 * - any other uncaughtException is a programming error that left some state unknown (the postgres.js
 *   crash patched by scripts/patch-postgres.mjs was one: it left a pooled connection unusable). Serving
 *   on would hide that: it is logged as fatal, the daemon stops gracefully (in-flight requests and jobs
 *   get up to 10 s), and the process exits with status 1 for its supervisor (systemd, Docker,
 *   Kubernetes) to restart it.
 */
function installErrorPolicy(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection (ignored: the process keeps serving)');
  });
  process.on('uncaughtException', (err, origin) => {
    if (isIoError(err)) {
      logger.error({ err, origin }, 'uncaught I/O error (ignored: the process keeps serving)');
      return;
    }
    logger.fatal({ err, origin }, 'uncaught exception: stopping gracefully, then exiting with status 1');
    const exit = () => process.exit(1);
    setTimeout(exit, 10_000).unref();
    (stopDaemon ?? (async () => {}))().then(exit, exit);
  });
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (command === 'serve' || command === 'worker') {
    installSignalHandlers(logger);
    installErrorPolicy(logger);
  }
  switch (command) {
    case 'serve':
      return serveCommand(config, logger, rest);
    case 'worker':
      return workerCommand(config, logger);
    case 'migrate':
      return migrateCommand(config, logger);
    case 'reembed': {
      const databaseUrl = await resolveDatabaseUrl(config, logger);
      const sql = createSql(databaseUrl, { max: 2 });
      const embedder = createEmbeddingProvider(embeddingConfigFrom(config, logger));
      try {
        await migrate(sql, (m) => logger.info(m));
        await migrateWorkerSchema(databaseUrl, logger);
        const r = await reembedAll({ sql, clock: systemClock(config.CLOCK_OFFSET_MS), config }, embedder);
        process.stdout.write(
          `Queued ${r.documents} document(s) for re-embedding with ${r.model} (${r.dimension} dimensions). A running worker processes them now.\n`,
        );
      } finally {
        await embedder.close();
        await sql.end();
      }
      return;
    }
    case 'admin': {
      if (!rest.length || rest[0] === '--help') {
        process.stdout.write(ADMIN_USAGE + '\n');
        return;
      }
      const databaseUrl = await resolveDatabaseUrl(config, logger);
      const sql = createSql(databaseUrl, { max: 2 });
      try {
        await migrate(sql, (m) => logger.info(m));
        process.exitCode = await runAdmin(
          { sql, config, clock: systemClock(config.CLOCK_OFFSET_MS), out: process.stdout, err: process.stderr },
          rest,
        );
      } finally {
        await sql.end();
      }
      return;
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) process.stderr.write(err.message + '\n');
  else process.stderr.write(`docsift-daemon: ${(err as Error)?.message ?? String(err)}\n`);
  process.exit(1);
});
