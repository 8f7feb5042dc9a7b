// The daemon's only entry point with side effects: reads env, provisions, starts, handles signals.
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig, type Config, type ResolvedConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { startDaemon } from './server.js';
import { startWorkerHealth } from './worker/health.js';
import { bootstrap } from './accounts/create.js';
import { adminHelp, isStandaloneAdmin, runAdmin, runStandaloneAdmin } from './admin-registry.js';
import { adminCommandLine, missingDatabase, openedDatabaseLine } from './admin/database.js';
import { embeddedPostgres } from './local-pg/from-config.js';
import { createSql, type Sql } from './db/client.js';
import { migrate, SchemaTooNewError } from './db/migrate.js';
import { watchSchema } from './db/schema-watch.js';
import { migrateWorkerSchema } from './worker/runner.js';
import { systemClock } from './types.js';
import { createEmbeddingProvider, embeddingConfigFrom } from './embeddings/index.js';
import { reembedAll } from './documents/reembed.js';
import { isDatabaseUnavailable } from './db/availability.js';
import { reindexText } from './indexing/reindex.js';

const USAGE = `docsift-daemon <command> [options]

Commands:
  serve [--api-only]   Start the API server and, unless --api-only, the job worker (default)
  worker               Run job workers only (no HTTP)
  migrate              Apply database migrations and exit
  reembed              Re-process every document with the configured embedding model
                       (required after changing EMBEDDING_PROVIDER, the model or EMBEDDING_DIMENSIONS)
  reindex              Rebuild the full-text (BM25) index from the stored chunks, ordered for
                       BM25_K1/BM25_B (run it after changing them); searches wait while it runs
  admin <subcommand>   Administrative tasks (run "admin --help")
  help                 Show this help

Configuration comes from environment variables; see README.md.`;

async function resolveDatabaseUrl(config: Config, logger: Logger): Promise<string> {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  const started = Date.now();
  const { databaseUrl } = await embeddedPostgres(config, (msg) => logger.info({ component: 'provision' }, msg));
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

/** The configuration a daemon runs with: database provisioned when unset, signing secret generated when unset. */
async function resolveConfig(config: Config, logger: Logger): Promise<ResolvedConfig> {
  const DATABASE_URL = await resolveDatabaseUrl(config, logger);
  return { ...config, DATABASE_URL, SIGNING_SECRET: await resolveSigningSecret(config) };
}

/** For the one-shot commands (migrate, reembed, admin): a small pool on the configured (or local) database, closed whatever `fn` does. */
async function withDatabase<T>(config: Config, logger: Logger, fn: (sql: Sql, databaseUrl: string) => Promise<T>): Promise<T> {
  const databaseUrl = await resolveDatabaseUrl(config, logger);
  const sql = createSql(databaseUrl, { max: 2 });
  try {
    return await fn(sql, databaseUrl);
  } finally {
    await sql.end();
  }
}

async function serveCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'api-only': { type: 'boolean', default: false } }, allowPositionals: false });
  const daemon = await startDaemon(await resolveConfig(config, logger), logger, { api: true, worker: !values['api-only'] });
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
      `  ${adminCommandLine(`set-password --email ${boot.user?.email}`, process.env)}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n\n');
  stopDaemon = await withSchemaWatch(config, logger, daemon);
}

/** Exit status of a daemon that cannot run on the database's schema: a supervisor should not restart it (systemd RestartPreventExitStatus=3). */
const EXIT_SCHEMA_TOO_NEW = 3;

/** Watches for a newer docsift's breaking migration; returns the daemon's stop with the watch's. */
async function withSchemaWatch(config: Config, logger: Logger, daemon: { deps: { sql: Sql }; stop(): Promise<void> }) {
  const watch = await watchSchema(daemon.deps.sql, {
    intervalMs: config.SCHEMA_WATCH_MS,
    logger,
    onTooNew: (err) => {
      logger.fatal({ migrations: err.migrations }, `${err.message}; stopping`);
      const exit = () => process.exit(EXIT_SCHEMA_TOO_NEW);
      setTimeout(exit, 10_000).unref();
      (stopDaemon ?? daemon.stop)().then(exit, exit);
    },
  });
  return async () => {
    watch.stop();
    await daemon.stop();
  };
}

async function workerCommand(config: Config, logger: Logger): Promise<void> {
  const daemon = await startDaemon(await resolveConfig(config, logger), logger, { api: false, worker: true });
  let health: { url: string; close(): Promise<void> } | undefined;
  if (config.HEALTH_PORT !== undefined) {
    const { sql, availability } = daemon.deps;
    health = await startWorkerHealth({ sql, availability, workerStatus: daemon.workerStatus }, config.HOST, config.HEALTH_PORT);
    logger.info({ url: health.url }, 'worker health endpoint listening (GET /healthz, /readyz)');
  }
  logger.info('worker running');
  const stop = await withSchemaWatch(config, logger, daemon);
  stopDaemon = async () => {
    await health?.close();
    await stop();
  };
}

async function migrateCommand(config: Config, logger: Logger): Promise<void> {
  await withDatabase(config, logger, async (sql, databaseUrl) => {
    const applied = await migrate(sql, (m) => logger.info(m), { warn: (m) => logger.warn(m) });
    await migrateWorkerSchema(databaseUrl, logger);
    process.stdout.write(applied.length ? `Applied ${applied.length} migration(s).\n` : 'Database is up to date.\n');
  });
}

async function reembedCommand(config: Config, logger: Logger): Promise<void> {
  const embedder = createEmbeddingProvider(embeddingConfigFrom(config, logger));
  try {
    const r = await withDatabase(config, logger, async (sql, databaseUrl) => {
      await migrate(sql, (m) => logger.info(m), { warn: (m) => logger.warn(m) });
      await migrateWorkerSchema(databaseUrl, logger);
      return reembedAll({ sql, clock: systemClock(config.CLOCK_OFFSET_MS), config }, embedder);
    });
    process.stdout.write(
      `Queued ${r.documents} document(s) for re-embedding with ${r.model} (${r.dimension} dimensions). A running worker processes them now.\n`,
    );
  } finally {
    await embedder.close();
  }
}

async function reindexCommand(config: Config, logger: Logger): Promise<void> {
  const r = await withDatabase(config, logger, async (sql) => {
    await migrate(sql, (m) => logger.info(m), { warn: (m) => logger.warn(m) });
    return reindexText(sql, { k1: config.BM25_K1, b: config.BM25_B });
  });
  process.stdout.write(
    `Rebuilt the full-text index: ${r.chunks} chunk(s), ${r.lists} list(s), ${r.postings} posting(s) in ${(r.ms / 1000).toFixed(1)} s, ordered for BM25 k1 ${config.BM25_K1}, b ${config.BM25_B}.\n`,
  );
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
  // Help needs neither configuration nor a database.
  const adminHelpAnswer = command === 'admin' ? adminHelp(rest) : undefined;
  if (adminHelpAnswer) {
    if (adminHelpAnswer.out) process.stdout.write(adminHelpAnswer.out + '\n');
    if (adminHelpAnswer.err) process.stderr.write(adminHelpAnswer.err + '\n');
    process.exitCode = adminHelpAnswer.code;
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
    case 'reembed':
      return reembedCommand(config, logger);
    case 'reindex':
      return reindexCommand(config, logger);
    case 'admin': {
      // stdout carries only the result (one JSON document with --json); start-up chatter such as
      // provisioning and applied migrations goes to stderr, and only when asked for (LOG_LEVEL=debug).
      const adminLogger = createLogger(logger.isLevelEnabled('debug') ? config.LOG_LEVEL : 'warn', process.stderr);
      const clock = systemClock(config.CLOCK_OFFSET_MS);
      if (isStandaloneAdmin(rest[0])) {
        process.exitCode = await runStandaloneAdmin({ config, clock, logger: adminLogger, out: process.stdout, err: process.stderr }, rest);
        return;
      }
      const missing = missingDatabase(config);
      if (missing) {
        process.stderr.write(`${missing}\n`);
        process.exitCode = 1;
        return;
      }
      process.exitCode = await withDatabase(config, adminLogger, async (sql, databaseUrl) => {
        process.stderr.write(`${openedDatabaseLine(config, databaseUrl)}\n`);
        await migrate(sql, (m) => adminLogger.info(m), { warn: (m) => adminLogger.warn(m) });
        return runAdmin({ sql, config, clock, out: process.stdout, err: process.stderr }, rest);
      });
      return;
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof SchemaTooNewError) {
    process.stderr.write(`docsift-daemon: ${err.message}\n`);
    process.exit(EXIT_SCHEMA_TOO_NEW);
  }
  if (err instanceof ConfigError) process.stderr.write(err.message + '\n');
  else process.stderr.write(`docsift-daemon: ${(err as Error)?.message ?? String(err)}\n`);
  process.exit(1);
});
