import { EventEmitter } from 'node:events';
import postgres from 'postgres';
import { Logger as WorkerLogger, run, runMigrations, type Runner, type Task, type TaskList, type WorkerEvents } from 'graphile-worker';
import { StoppingError } from '../errors.js';
import type { Logger } from '../logger.js';

function workerLogger(logger: Logger): WorkerLogger {
  const log = logger.child({ component: 'worker' });
  return new WorkerLogger(() => (level, message, meta) => {
    const fn = level === 'error' ? log.error : level === 'warning' ? log.warn : level === 'debug' ? log.debug : log.info;
    fn.call(log, meta ?? {}, message);
  });
}

const WORKER_MIGRATION_LOCK_ID = 727_431_003;

/**
 * Creates or upgrades graphile-worker's own schema. graphile-worker's `create schema if not exists`
 * is not safe against a concurrent first start, so processes serialise on an advisory lock held
 * for the duration.
 */
export async function migrateWorkerSchema(connectionString: string, logger: Logger): Promise<void> {
  const sql = postgres(connectionString, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${WORKER_MIGRATION_LOCK_ID})`;
      await runMigrations({ connectionString, logger: workerLogger(logger) });
    });
  } finally {
    await sql.end();
  }
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
    // An empty string would make graphile-worker look for a ./crontab file instead.
    crontab: opts.crontab || '# no recurring jobs',
    noHandleSignals: true,
    pollInterval: opts.pollInterval ?? 1000,
    logger: workerLogger(opts.logger),
  });
}

/**
 * The tasks, each refusing to start once `stopping()`: a job graphile-worker fetched in the moment
 * the process began to stop is handed back (StoppingError: its attempt is given back) instead of run.
 */
export function tasksUntilStopped(tasks: TaskList, stopping: () => boolean): TaskList {
  return Object.fromEntries(
    Object.entries(tasks).flatMap(([identifier, task]) =>
      task
        ? [
            [
              identifier,
              ((payload, helpers) => {
                if (stopping()) throw new StoppingError('the worker is stopping: the job runs on the next worker');
                return task(payload, helpers);
              }) satisfies Task,
            ],
          ]
        : [],
    ),
  );
}
