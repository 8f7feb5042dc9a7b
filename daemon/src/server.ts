import { warnIfIndexOrderDiffers } from './indexing/bm25-params.js';
import { serve, type ServerType } from '@hono/node-server';
import type { WorkerEvents } from 'graphile-worker';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { publicUrl, type ResolvedConfig } from './config.js';
import { closeDeps, createDeps } from './deps.js';
import { migrate } from './db/migrate.js';
import { buildTaskList, CRONTAB } from './job-registry.js';
import type { Logger } from './logger.js';
import type { AppDeps, Clock } from './types.js';
import { assertGraphileInternals } from './worker/graphile-internals.js';
import { migrateWorkerSchema, startWorker, tasksUntilStopped } from './worker/runner.js';
import { startCrashRecovery } from './worker/recovery.js';
import { superviseWorker, type SupervisedWorker, type WorkerStatus } from './worker/supervisor.js';
import { assertEmbeddingModel } from './indexing/embedding-model.js';
import { createSql } from './db/client.js';
import { sealPlaintextWebhookSecrets } from './webhooks/secrets.js';
import { enqueueStaleLanguageReindexes } from './collections/language.js';
import { warmSearch } from './search/warm-up.js';

export interface Daemon {
  url: string;
  port: number;
  deps: AppDeps;
  /** This process's job worker, when it runs one (for /readyz and the worker's health endpoint). */
  workerStatus?: () => WorkerStatus;
  /** Graceful: stop accepting, finish in-flight requests and jobs, close the pool. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  api: boolean;
  worker: boolean;
  migrate?: boolean;
  clock?: Clock;
}

/** Everything between "we have a database URL" and "serving"; used by main.ts and by the test harness. */
export async function startDaemon(config: ResolvedConfig, logger: Logger, opts: DaemonOptions): Promise<Daemon> {
  const deps = createDeps(config, logger, { ...(opts.clock ? { clock: opts.clock } : {}), api: opts.api });
  const { sql } = deps;
  const poolUrl = deps.config.DATABASE_POOL_URL;
  let server: ServerType | undefined;
  let worker: SupervisedWorker | undefined;
  let recovery: { stop(): Promise<void> } | undefined;
  let stopping: Promise<void> | undefined;
  try {
    if (opts.migrate !== false) {
      // Session state (an advisory lock held across statements): never through a transaction pooler.
      const direct = poolUrl ? createSql(config.DATABASE_URL, { max: 1, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS }) : sql;
      try {
        await migrate(direct, (m) => logger.info(m), { warn: (m) => logger.warn(m) });
      } finally {
        if (direct !== sql) await direct.end({ timeout: 5 });
      }
      await migrateWorkerSchema(config.DATABASE_URL, logger);
    }
    // A store that cannot be written (wrong bucket, refused credentials, unreachable) stops the start
    // with a message naming the setting, instead of failing every upload later.
    await deps.blobs.check();
    await assertEmbeddingModel(sql, deps.embedder.model, deps.embedder.configuredDimension);
    await warnIfIndexOrderDiffers(sql, { k1: config.BM25_K1, b: config.BM25_B }, logger);
    await sealPlaintextWebhookSecrets(sql, config.SIGNING_SECRET, logger);
    // The port is bound before any background work starts: a second daemon whose port is taken
    // (EADDRINUSE) exits having run no job, so it never delivers a webhook under its own settings.
    let port = config.PORT;
    if (opts.api) {
      // Before listening, so "ready" means the first search costs what the tenth does.
      if (config.SEARCH_WARM_UP) await warmSearch(deps);
      const draining = () => stopping !== undefined;
      const app = createApp(
        deps,
        opts.worker
          ? { draining, workerStatus: () => worker?.status() ?? { processing: false, reason: 'the job worker is starting' } }
          : { draining },
      );
      server = await new Promise<ServerType>((resolve, reject) => {
        const s = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () => resolve(s));
        s.once('error', reject);
      });
      port = (server.address() as AddressInfo).port;
      closeConnectionsWhenDrained(server, draining);
    }
    if (opts.worker) {
      await assertGraphileInternals(sql);
      const stale = await enqueueStaleLanguageReindexes(sql, config.TEXT_SEARCH_CONFIG);
      if (stale) logger.info({ collections: stale }, 'reindexing collections whose text index predates their language configuration');
      // Before the worker runs (and so before /readyz answers ready): the first documents find the
      // parsers loaded (ExtractionPool.warm), and the threads' start-up does not compete with the
      // first searches for the CPU.
      await deps.extraction.warm().catch((err: unknown) => logger.warn({ err }, 'could not start the extraction threads ahead'));
      const events = new EventEmitter() as WorkerEvents;
      recovery = startCrashRecovery(sql, events, logger, { heartbeatMs: config.WORKER_HEARTBEAT_MS, staleMs: config.WORKER_STALE_MS });
      const { availability } = deps;
      worker = await superviseWorker({
        start: () =>
          startWorker({
            events,
            connectionString: config.DATABASE_URL,
            concurrency: config.WORKER_CONCURRENCY,
            taskList: tasksUntilStopped(buildTaskList(deps), () => stopping !== undefined),
            crontab: CRONTAB,
            logger,
          }),
        events,
        concurrency: config.WORKER_CONCURRENCY,
        logger,
        databaseReachable: () => availability.check(),
      });
    }
    const url = publicUrl(config, port);
    // Everything stops taking work at once (the flag is set before any other code runs): the API
    // refuses new requests (app.ts) and stops listening, the worker claims no job and ends extractions in
    // progress (their jobs are given back). Then what is in flight finishes: requests, and jobs
    // past their extraction.
    const stop = () =>
      (stopping ??= (async () => {
        const t0 = Date.now();
        const since = (p: Promise<unknown> | undefined) => p?.then(() => Date.now() - t0);
        const http = since(server ? drainHttp(server) : undefined);
        const jobs = since(worker?.stop());
        await deps.extraction.close();
        const [httpMs, jobsMs] = await Promise.all([http, jobs]);
        await recovery?.stop();
        // Every request has finished: write the request-log records still buffered, while the pool is open.
        await deps.usageLog.close();
        await closeDeps(deps);
        logger.info({ httpMs, jobsMs, ms: Date.now() - t0 }, 'stopped: requests and jobs in flight finished');
      })());
    const w = worker;
    return { url, port, deps, stop, ...(w ? { workerStatus: () => w.status() } : {}) };
  } catch (err) {
    server?.close();
    await worker?.stop().catch(() => {});
    await recovery?.stop().catch(() => {});
    await closeDeps(deps, { timeoutSec: 1 }).catch(() => {});
    throw err;
  }
}

type HttpServer = ServerType & { closeIdleConnections(): void };

/**
 * Once `draining()`, a connection closes as soon as it has answered: app.ts marks answers
 * `Connection: close`; one whose headers had gone before the drain began is closed here.
 */
function closeConnectionsWhenDrained(server: ServerType, draining: () => boolean): void {
  const s = server as HttpServer;
  s.on('request', (_req, res: { once(event: 'finish', fn: () => void): void }) =>
    res.once('finish', () => {
      if (draining()) setImmediate(() => s.closeIdleConnections());
    }),
  );
}

/** Stops listening; resolves once every connection has closed (idle keep-alive sockets close now). */
function drainHttp(server: ServerType): Promise<void> {
  const s = server as HttpServer;
  const closed = new Promise<void>((resolve) => s.close(() => resolve()));
  s.closeIdleConnections();
  return closed;
}
