import { serve, type ServerType } from '@hono/node-server';
import type { WorkerEvents } from 'graphile-worker';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createSql, type Sql } from './db/client.js';
import { migrate } from './db/migrate.js';
import { buildTaskList, CRONTAB } from './jobs/index.js';
import type { Logger } from './logger.js';
import { systemClock, type AppDeps, type Clock } from './types.js';
import { migrateWorkerSchema, startWorker } from './worker/runner.js';
import { startCrashRecovery } from './worker/recovery.js';
import { superviseWorker, type SupervisedWorker, type WorkerStatus } from './worker/supervisor.js';
import { closeDatabaseAvailability, databaseAvailability } from './db/availability.js';
import { assertEmbeddingModel } from './search/embedding-model.js';
import { createBlobStore } from './storage/index.js';
import { createReadPool } from './db/read-pool.js';
import { createEmbeddingProvider, embeddingConfigFrom } from './embeddings/index.js';
import { closeUsageWriter } from './usage/log-writer.js';
import { sealPlaintextWebhookSecrets } from './webhooks/secrets.js';

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
export async function startDaemon(config: Config & { DATABASE_URL: string }, logger: Logger, opts: DaemonOptions): Promise<Daemon> {
  // Which URL each part uses (README "Deploying and scaling"): API requests go through the pooler
  // when there is one; migrations and the job worker connect directly; read-only work may go to a replica.
  const poolUrl = opts.api ? config.DATABASE_POOL_URL : undefined;
  config = { ...config, DATABASE_POOL_URL: poolUrl };
  const sqlOptions = { max: config.DB_POOL_MAX, hnswEfSearch: config.HNSW_EF_SEARCH, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS };
  const sql: Sql = createSql(poolUrl ?? config.DATABASE_URL, { ...sqlOptions, pooled: !!poolUrl });
  const readUrl = opts.api ? config.DATABASE_READ_URL : undefined;
  const deps: AppDeps = {
    config,
    sql,
    reads: createReadPool(sql, logger, readUrl ? { url: readUrl, pooled: config.DATABASE_READ_POOLED, sqlOptions } : undefined),
    logger,
    clock: opts.clock ?? systemClock(config.CLOCK_OFFSET_MS),
    blobs: createBlobStore(config),
    embedder: createEmbeddingProvider(embeddingConfigFrom(config, logger)),
  };
  let server: ServerType | undefined;
  let worker: SupervisedWorker | undefined;
  let recovery: { stop(): Promise<void> } | undefined;
  try {
    if (opts.migrate !== false) {
      // Session state (an advisory lock held across statements): never through a transaction pooler.
      const direct = poolUrl ? createSql(config.DATABASE_URL, { max: 1, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS }) : sql;
      try {
        await migrate(direct, (m) => logger.info(m));
      } finally {
        if (direct !== sql) await direct.end({ timeout: 5 });
      }
      await migrateWorkerSchema(config.DATABASE_URL, logger);
    }
    // A store that cannot be written (wrong bucket, refused credentials, unreachable) stops the start
    // with a message naming the setting, instead of failing every upload later.
    await deps.blobs.check();
    await assertEmbeddingModel(sql, deps.embedder.model, deps.embedder.configuredDimension);
    await sealPlaintextWebhookSecrets(sql, config.SIGNING_SECRET, logger);
    if (opts.worker) {
      const events = new EventEmitter() as WorkerEvents;
      recovery = startCrashRecovery(sql, events, logger, { heartbeatMs: config.WORKER_HEARTBEAT_MS, staleMs: config.WORKER_STALE_MS });
      const availability = databaseAvailability(deps);
      worker = await superviseWorker({
        start: () =>
          startWorker({
            events,
            connectionString: config.DATABASE_URL,
            concurrency: config.WORKER_CONCURRENCY,
            taskList: buildTaskList(deps),
            crontab: CRONTAB,
            logger,
          }),
        events,
        concurrency: config.WORKER_CONCURRENCY,
        logger,
        databaseReachable: () => availability.check(),
      });
    }
    let port = config.PORT;
    if (opts.api) {
      const w = worker;
      const app = createApp(deps, w ? { workerStatus: () => w.status() } : {});
      server = await new Promise<ServerType>((resolve, reject) => {
        const s = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () => resolve(s));
        s.once('error', reject);
      });
      port = (server.address() as AddressInfo).port;
    }
    const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
    const url = config.PUBLIC_URL ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        if (server) {
          const s = server;
          await new Promise<void>((resolve) => {
            s.close(() => resolve());
            // Keep-alive sockets would hold close() open; idle ones go now, busy ones after their response.
            (s as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
          });
        }
        // Every request has finished: write the request-log records still buffered, while the pool is open.
        await closeUsageWriter(deps);
        if (worker) await worker.stop();
        await recovery?.stop();
        await closeDatabaseAvailability(deps);
        await deps.embedder.close();
        deps.blobs.close();
        await deps.reads.close();
        await sql.end({ timeout: 5 });
      })());
    const w = worker;
    return { url, port, deps, stop, ...(w ? { workerStatus: () => w.status() } : {}) };
  } catch (err) {
    server?.close();
    await worker?.stop().catch(() => {});
    await recovery?.stop().catch(() => {});
    await closeDatabaseAvailability(deps);
    deps.blobs.close();
    await deps.reads.close().catch(() => {});
    await sql.end({ timeout: 1 }).catch(() => {});
    throw err;
  }
}
