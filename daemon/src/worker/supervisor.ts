import type { Runner, Worker, WorkerEvents, WorkerPool } from 'graphile-worker';
import { isDatabaseUnavailable } from '../db/availability.js';
import type { Logger } from '../logger.js';

export interface WorkerStatus {
  processing: boolean;
  /** Why not, when not. */
  reason?: string;
}

const DATABASE_RECHECK_MS = 1000;
/** Consecutive failed job fetches (about a second apart per worker) after which a reachable database means a wedged runner. */
const WEDGED_AFTER_FAILURES = 5;

export interface SupervisedWorker {
  status(): WorkerStatus;
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  /** Starts one runner; every runner shares `events`. */
  start: () => Promise<Runner>;
  events: WorkerEvents;
  concurrency: number;
  logger: Logger;
  /** Resolves true when the database answers; a runner is only (re)started then. */
  databaseReachable: () => Promise<boolean>;
  /** Delay before the first restart attempt; doubles per failed attempt up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Keeps graphile-worker processing, in-process, through database outages and restarts.
 *
 * graphile-worker 0.16 leaves three failures to its caller: the runner's promise rejects when a cron
 * tick cannot reach the database (the runner has stopped itself by then); a worker that cannot record
 * a job's outcome exits for good while its pool carries on without it, never replaced; and a runner
 * whose task-id lookup failed keeps failing every job fetch (below). Each time this replaces the
 * whole runner: the old one is stopped gracefully (its other jobs finish),
 * and a new one is started once the database answers again, retrying with exponential backoff.
 * While the database is down nothing is restarted: a new runner could not start, and the old one's
 * remaining workers keep polling and resume by themselves.
 */
export async function superviseWorker(opts: SuperviseOptions): Promise<SupervisedWorker> {
  const log = opts.logger.child({ component: 'worker-supervisor' });
  const initialDelay = opts.initialDelayMs ?? 500;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  let runner: Runner | undefined;
  let pool: WorkerPool | undefined;
  let live = 0;
  let problem: string | undefined;
  let stopping = false;
  let restarting: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let failures = 0;
  let lastStart = Date.now();

  // Which pool is the current one, and how many of its workers are alive.
  opts.events.on('pool:create', ({ workerPool }) => {
    pool = workerPool;
    live = 0;
    fetchFailures = 0;
  });
  opts.events.on('worker:create', ({ worker }) => {
    if (worker.workerPool === pool) live++;
  });
  opts.events.on('worker:stop', ({ worker, error }: { worker: Worker; error?: unknown }) => {
    if (worker.workerPool !== pool) return;
    live--;
    // A stop the pool asked for (shutdown) is orderly; any other means the worker died.
    if (stopping || pool._shuttingDown) return;
    const message = `a job worker exited (${live} of ${opts.concurrency} left): ${(error as Error)?.message ?? 'no error given'}`;
    log.error({ err: error, workerId: worker.workerId }, 'job worker exited; replacing the runner');
    scheduleRestart(message, error);
  });

  // graphile-worker 0.16 caches the lookup of its task ids per runner, and caches a failed lookup
  // too: a runner whose first job fetch met a database restart then fails every fetch, for good,
  // with its workers alive. Fetches that keep failing while the database answers mean that: replace it.
  let fetchFailures = 0;
  let lastFetchError = '';
  let checkingFetch = false;
  const fetched = () => {
    fetchFailures = 0;
  };
  opts.events.on('worker:getJob:empty', fetched);
  opts.events.on('job:start', fetched);
  opts.events.on('worker:getJob:error', ({ worker, error }) => {
    if (worker.workerPool !== pool || stopping) return;
    fetchFailures++;
    lastFetchError = (error as Error)?.message ?? String(error);
    if (fetchFailures < WEDGED_AFTER_FAILURES || checkingFetch || restarting) return;
    checkingFetch = true;
    const wedged = pool;
    void opts
      .databaseReachable()
      .catch(() => false)
      .then((reachable) => {
        // During an outage failing fetches are expected: count afresh once it is over.
        if (!reachable) fetchFailures = 0;
        else if (pool === wedged && fetchFailures >= WEDGED_AFTER_FAILURES) {
          log.error(
            { failures: fetchFailures, error: lastFetchError },
            'job workers cannot fetch jobs although the database answers; replacing the runner',
          );
          scheduleRestart(`the job workers cannot fetch jobs: ${lastFetchError}`, undefined);
        }
      })
      .finally(() => {
        checkingFetch = false;
      });
  });

  const watch = (r: Runner) => {
    r.promise.then(
      () => {
        if (r === runner && !stopping) {
          log.error('job runner stopped unexpectedly');
          runner = undefined;
          scheduleRestart('the job runner stopped', undefined);
        }
      },
      (err: unknown) => {
        if (r === runner && !stopping) {
          log.error({ err }, 'job runner stopped unexpectedly');
          runner = undefined;
          scheduleRestart(`the job runner stopped: ${(err as Error)?.message ?? String(err)}`, err);
        }
      },
    );
  };

  let again: { reason: string; cause: unknown } | undefined;
  function scheduleRestart(reason: string, cause: unknown): void {
    problem ??= reason;
    if (restarting) {
      // A failure of the runner being started now: go round once more after it.
      again ??= { reason, cause };
      return;
    }
    again = undefined;
    restarting = restartLoop(isDatabaseUnavailable(cause)).finally(() => {
      restarting = undefined;
      const next = again;
      again = undefined;
      if (next && !stopping && pool && (!runner || live < opts.concurrency)) scheduleRestart(next.reason, next.cause);
    });
  }

  async function restartLoop(outage: boolean): Promise<void> {
    // Restarts back off exponentially, across restarts that follow each other (a job that kills its
    // worker every time must not restart the runner in a tight loop); a runner that ran for a minute
    // resets that. The database going away is not such a failure: the runner is replaced as soon as
    // it answers again, checked every second.
    if (outage || Date.now() - lastStart > 60_000) failures = 0;
    let delay = Math.min(maxDelay, initialDelay * 2 ** failures++);
    while (!stopping) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (stopping) return;
      if (!(await opts.databaseReachable().catch(() => false))) {
        delay = DATABASE_RECHECK_MS;
        continue;
      }
      const old = runner;
      runner = undefined;
      // Graceful: jobs still running in the old runner finish first. It may have stopped itself already.
      await old?.stop().catch(() => {});
      if (stopping) return;
      try {
        const next = await opts.start();
        if (stopping) {
          await next.stop().catch(() => {});
          return;
        }
        runner = next;
        lastStart = Date.now();
        watch(next);
        log.info('job runner restarted');
        problem = undefined;
        return;
      } catch (err) {
        problem = `the job runner could not be restarted: ${(err as Error)?.message ?? String(err)}`;
        log.warn({ err }, 'job runner restart failed; retrying');
        delay = Math.min(maxDelay, initialDelay * 2 ** failures++);
      }
    }
  }

  runner = await opts.start();
  watch(runner);

  return {
    status() {
      if (problem) return { processing: false, reason: problem };
      if (!runner) return { processing: false, reason: 'the job runner is not running' };
      if (live < opts.concurrency) return { processing: false, reason: `${live} of ${opts.concurrency} job workers are running` };
      if (fetchFailures >= WEDGED_AFTER_FAILURES)
        return { processing: false, reason: `the job workers cannot fetch jobs: ${lastFetchError}` };
      return { processing: true };
    },
    async stop() {
      stopping = true;
      wake?.();
      await restarting;
      const r = runner;
      runner = undefined;
      await r?.stop();
    },
  };
}
