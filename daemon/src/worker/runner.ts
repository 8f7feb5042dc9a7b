import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, run, runMigrations, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { Logger } from '../logger.js';

function workerLogger(logger: Logger): WorkerLogger {
  const log = logger.child({ component: 'worker' });
  return new WorkerLogger(() => (level, message, meta) => {
    const fn = level === 'error' ? log.error : level === 'warning' ? log.warn : level === 'debug' ? log.debug : log.info;
    fn.call(log, meta ?? {}, message);
  });
}

/** Creates graphile-worker's own schema (idempotent; it takes its own lock). */
export async function migrateWorkerSchema(connectionString: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString, logger: workerLogger(logger) });
}

export async function startWorker(opts: {
  connectionString: string;
  concurrency: number;
  taskList: TaskList;
  crontab?: string;
  logger: Logger;
  pollInterval?: number;
  /** Pass an emitter to observe workers from the very first one (run() creates them before resolving). */
  events?: WorkerEvents;
}): Promise<Runner> {
  return run({
    events: opts.events ?? (new EventEmitter() as WorkerEvents),
    connectionString: opts.connectionString,
    concurrency: opts.concurrency,
    // Pool: one connection per concurrent job plus LISTEN and housekeeping.
    maxPoolSize: opts.concurrency + 2,
    taskList: opts.taskList,
    crontab: opts.crontab ?? '',
    noHandleSignals: true,
    pollInterval: opts.pollInterval ?? 1000,
    logger: workerLogger(opts.logger),
  });
}
