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
  const supervisor = new WorkerSupervisor(opts);
  await supervisor.start();
  return supervisor;
}

class WorkerSupervisor implements SupervisedWorker {
  private readonly log: Logger;
  private readonly initialDelay: number;
  private readonly maxDelay: number;
  /** The runner in service; undefined while it is being replaced (or it stopped by itself). */
  private runner: Runner | undefined;
  /** The current runner's worker pool, and how many of its workers are alive. */
  private pool: WorkerPool | undefined;
  private liveWorkers = 0;
  /** Why the worker is not processing, from the first failure until a runner starts again. */
  private problem: string | undefined;
  private stopping = false;
  /** The restart in progress, a failure met meanwhile (restarted once more after it), and how to cut its wait short. */
  private restarting: Promise<void> | undefined;
  private restartAgain: { reason: string; cause: unknown } | undefined;
  private wakeRestart: (() => void) | undefined;
  /** Failed restarts in a row (the backoff's exponent), and when the latest runner started. */
  private restartFailures = 0;
  private lastStart = Date.now();
  /** Job fetches of the current pool that failed in a row, the latest one's error, and whether the database is being asked about them. */
  private fetchFailures = 0;
  private lastFetchError = '';
  private checkingFetch = false;

  constructor(private readonly opts: SuperviseOptions) {
    this.log = opts.logger.child({ component: 'worker-supervisor' });
    this.initialDelay = opts.initialDelayMs ?? 500;
    this.maxDelay = opts.maxDelayMs ?? 30_000;
    const events = opts.events;
    events.on('pool:create', ({ workerPool }) => {
      this.pool = workerPool;
      this.liveWorkers = 0;
      this.fetchFailures = 0;
    });
    events.on('worker:create', ({ worker }) => {
      if (worker.workerPool === this.pool) this.liveWorkers++;
    });
    events.on('worker:stop', ({ worker, error }: { worker: Worker; error?: unknown }) => this.workerStopped(worker, error));
    const fetched = () => {
      this.fetchFailures = 0;
    };
    events.on('worker:getJob:empty', fetched);
    events.on('job:start', fetched);
    events.on('worker:getJob:error', ({ worker, error }) => this.fetchFailed(worker, error));
  }

  async start(): Promise<void> {
    this.runner = await this.opts.start();
    this.watch(this.runner);
  }

  status(): WorkerStatus {
    const { concurrency } = this.opts;
    if (this.problem) return { processing: false, reason: this.problem };
    if (!this.runner) return { processing: false, reason: 'the job runner is not running' };
    if (this.liveWorkers < concurrency)
      return { processing: false, reason: `${this.liveWorkers} of ${concurrency} job workers are running` };
    if (this.fetchFailures >= WEDGED_AFTER_FAILURES)
      return { processing: false, reason: `the job workers cannot fetch jobs: ${this.lastFetchError}` };
    return { processing: true };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeRestart?.();
    await this.restarting;
    const r = this.runner;
    this.runner = undefined;
    await r?.stop();
  }

  private workerStopped(worker: Worker, error: unknown): void {
    if (worker.workerPool !== this.pool) return;
    this.liveWorkers--;
    // A stop the pool asked for (shutdown) is orderly; any other means the worker died.
    if (this.stopping || this.pool._shuttingDown) return;
    const message = `a job worker exited (${this.liveWorkers} of ${this.opts.concurrency} left): ${(error as Error)?.message ?? 'no error given'}`;
    this.log.error({ err: error, workerId: worker.workerId }, 'job worker exited; replacing the runner');
    this.scheduleRestart(message, error);
  }

  /**
   * graphile-worker 0.16 caches the lookup of its task ids per runner, and caches a failed lookup
   * too: a runner whose first job fetch met a database restart then fails every fetch, for good,
   * with its workers alive. Fetches that keep failing while the database answers mean that: replace it.
   */
  private fetchFailed(worker: Worker, error: unknown): void {
    if (worker.workerPool !== this.pool || this.stopping) return;
    this.fetchFailures++;
    this.lastFetchError = (error as Error)?.message ?? String(error);
    if (this.fetchFailures < WEDGED_AFTER_FAILURES || this.checkingFetch || this.restarting) return;
    this.checkingFetch = true;
    const wedged = this.pool;
    void this.opts
      .databaseReachable()
      .catch(() => false)
      .then((reachable) => {
        // During an outage failing fetches are expected: count afresh once it is over.
        if (!reachable) this.fetchFailures = 0;
        else if (this.pool === wedged && this.fetchFailures >= WEDGED_AFTER_FAILURES) {
          this.log.error(
            { failures: this.fetchFailures, error: this.lastFetchError },
            'job workers cannot fetch jobs although the database answers; replacing the runner',
          );
          this.scheduleRestart(`the job workers cannot fetch jobs: ${this.lastFetchError}`, undefined);
        }
      })
      .finally(() => {
        this.checkingFetch = false;
      });
  }

  /** A runner that stops by itself while it is the one in service is replaced. */
  private watch(r: Runner): void {
    r.promise.then(
      () => {
        if (r === this.runner && !this.stopping) {
          this.log.error('job runner stopped unexpectedly');
          this.runner = undefined;
          this.scheduleRestart('the job runner stopped', undefined);
        }
      },
      (err: unknown) => {
        if (r === this.runner && !this.stopping) {
          this.log.error({ err }, 'job runner stopped unexpectedly');
          this.runner = undefined;
          this.scheduleRestart(`the job runner stopped: ${(err as Error)?.message ?? String(err)}`, err);
        }
      },
    );
  }

  private scheduleRestart(reason: string, cause: unknown): void {
    this.problem ??= reason;
    if (this.restarting) {
      // A failure of the runner being started now: go round once more after it.
      this.restartAgain ??= { reason, cause };
      return;
    }
    this.restartAgain = undefined;
    this.restarting = this.restartLoop(isDatabaseUnavailable(cause)).finally(() => {
      this.restarting = undefined;
      const next = this.restartAgain;
      this.restartAgain = undefined;
      if (next && !this.stopping && this.pool && (!this.runner || this.liveWorkers < this.opts.concurrency))
        this.scheduleRestart(next.reason, next.cause);
    });
  }

  /**
   * Restarts back off exponentially, across restarts that follow each other (a job that kills its
   * worker every time must not restart the runner in a tight loop); a runner that ran for a minute
   * resets that. The database going away is not such a failure: the runner is replaced as soon as
   * it answers again, checked every second.
   */
  private async restartLoop(outage: boolean): Promise<void> {
    if (outage || Date.now() - this.lastStart > 60_000) this.restartFailures = 0;
    let delay = Math.min(this.maxDelay, this.initialDelay * 2 ** this.restartFailures++);
    while (!this.stopping) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeRestart = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeRestart = undefined;
      if (this.stopping) return;
      if (!(await this.opts.databaseReachable().catch(() => false))) {
        delay = DATABASE_RECHECK_MS;
        continue;
      }
      const old = this.runner;
      this.runner = undefined;
      // Graceful: jobs still running in the old runner finish first. It may have stopped itself already.
      await old?.stop().catch(() => {});
      if (this.stopping) return;
      try {
        const next = await this.opts.start();
        if (this.stopping) {
          await next.stop().catch(() => {});
          return;
        }
        this.runner = next;
        this.lastStart = Date.now();
        this.watch(next);
        this.log.info('job runner restarted');
        this.problem = undefined;
        return;
      } catch (err) {
        this.problem = `the job runner could not be restarted: ${(err as Error)?.message ?? String(err)}`;
        this.log.warn({ err }, 'job runner restart failed; retrying');
        delay = Math.min(this.maxDelay, this.initialDelay * 2 ** this.restartFailures++);
      }
    }
  }
}
