import os from 'node:os';
import type { WorkerEvents } from 'graphile-worker';
import type { Sql } from '../db/client.js';
import { isDatabaseUnavailable } from '../db/availability.js';
import { isStopping } from '../errors.js';
import type { Logger } from '../logger.js';
import { giveBackAttempts, jobsLockedBy, releaseLockedJobs } from './graphile-internals.js';

export interface RecoveryOptions {
  heartbeatMs: number;
  /** A worker silent for this long is considered dead and its jobs are unlocked. */
  staleMs: number;
}

/** A job is given back at most this many attempts (a job that itself keeps killing connections must still run out). */
const MAX_GIVE_BACKS = 20;
/** A lock older than this, held by a worker of this process idle for as long, is a candidate orphan. */
const ORPHAN_GRACE_MS = 2000;

/**
 * Heartbeats for this process's live workers, plus a sweep that force-unlocks jobs held by workers
 * that stopped heart-beating (a killed process). graphile-worker then retries those jobs at once; the
 * jobs themselves are idempotent, so a job that was mid-flight runs again without duplicating work.
 *
 * A worker of this process that stops (it died, or its runner was replaced) is dropped from the
 * heartbeats at once, and its jobs are released on the next tick: nothing waits for staleness.
 *
 * An attempt that failed only because the database was unreachable, or because this process is
 * stopping, tells nothing about the job, so it is given back: a document processed across a few
 * database restarts or deploys is not marked failed for running out of attempts, nor delayed by a
 * backoff that grew meanwhile.
 *
 * A job can also stay locked by a worker of this process that is alive but not running it: the
 * reply of the statement that locked it (graphile-worker's fetch, a batch claim) or the release of
 * a batch claim was lost with its connection in a database restart. graphile-worker would leave
 * that lock for hours. A lock older than ORPHAN_GRACE_MS held by a worker idle for as long, seen
 * at two ticks in a row with the worker idle all along, is released and its attempt given back.
 *
 * After an outage every process's heartbeats are equally old. A process that saw the outage only
 * judges others' heartbeats once it has itself reached the database again for a whole stale period,
 * so that live workers elsewhere have had the same chance to beat and are not mistaken for dead ones.
 */
/** The heartbeat of workers of this process: an upsert, so a row another process removed (this one looked dead while it was stalled) comes back. */
async function beatFor(sql: Sql, workerIds: string[]): Promise<void> {
  await sql`
    insert into worker_heartbeats (worker_id, hostname, pid)
    select unnest(${workerIds}::text[]), ${os.hostname()}, ${process.pid}
    on conflict (worker_id) do update set last_seen = now()`;
}

/**
 * Releases the jobs of workers silent for `staleMs` (or absent from the heartbeats for twice that,
 * with a job locked), other than this process's live ones, and removes silent workers' rows.
 */
async function releaseDeadWorkers(sql: Sql, staleMs: number, live: ReadonlySet<string>, log: Logger): Promise<void> {
  const staleSec = staleMs / 1000;
  const rows = await sql<{ locked_by: string }[]>`
    select distinct j.locked_by
      from graphile_worker.jobs j
      left join worker_heartbeats h on h.worker_id = j.locked_by
     where j.locked_by is not null
       and (h.last_seen < now() - make_interval(secs => ${staleSec})
            or (h.worker_id is null and j.locked_at < now() - make_interval(secs => ${staleSec * 2})))`;
  const dead = rows.map((r) => r.locked_by).filter((id) => !live.has(id));
  if (dead.length) {
    await sql`select graphile_worker.force_unlock_workers(${dead}::text[])`;
    await sql`delete from worker_heartbeats where worker_id = any(${dead}::text[])`;
    log.warn({ workers: dead }, 'released jobs of workers that stopped responding');
  }
  // Workers silent for that long that held no job: nothing to release, but their rows must go.
  await sql`delete from worker_heartbeats where last_seen < now() - make_interval(secs => ${staleSec})`;
}

export function startCrashRecovery(sql: Sql, events: WorkerEvents, logger: Logger, opts: RecoveryOptions): { stop(): Promise<void> } {
  const live = new Set<string>();
  /** Workers of this process that stopped: their jobs are released and their heartbeat rows removed. */
  const gone = new Set<string>();
  /** Jobs whose current attempt is given back. */
  const giveBack = new Set<string>();
  const givenBack = new Map<string, number>();
  const activeJob = new Map<string, string>();
  /** When each live worker of this process last finished a job or started (absent while it runs one). */
  const idleSince = new Map<string, number>();
  /** Jobs seen locked by an idle worker of this process at the latest tick. */
  let suspects = new Map<string, { workerId: string; seenAt: number }>();
  /** Since when this process has reached the database without a failed tick (start-up counts as long ago). */
  let reachableSince: number | undefined = 0;
  const log = logger.child({ component: 'recovery' });

  events.on('worker:create', ({ worker }) => {
    live.add(worker.workerId);
    idleSince.set(worker.workerId, Date.now());
    void beatFor(sql, [worker.workerId]).catch((err) =>
      log[isDatabaseUnavailable(err) ? 'debug' : 'warn']({ err }, 'heartbeat register failed'),
    );
  });
  events.on('worker:stop', ({ worker, error }) => {
    live.delete(worker.workerId);
    idleSince.delete(worker.workerId);
    gone.add(worker.workerId);
    // It died holding a job whose outcome it could not record because the database went away.
    const job = activeJob.get(worker.workerId);
    activeJob.delete(worker.workerId);
    if (job && isDatabaseUnavailable(error)) giveBackAttempt(job);
  });
  events.on('job:start', ({ worker, job }) => {
    activeJob.set(worker.workerId, job.id);
    idleSince.delete(worker.workerId);
  });
  events.on('job:complete', ({ worker, job, error }) => {
    activeJob.delete(worker.workerId);
    if (live.has(worker.workerId)) idleSince.set(worker.workerId, Date.now());
    if (!error) givenBack.delete(job.id);
  });
  events.on('job:error', ({ job, error }) => {
    if (isDatabaseUnavailable(error) || isStopping(error)) giveBackAttempt(job.id);
  });
  function giveBackAttempt(jobId: string): void {
    const n = givenBack.get(jobId) ?? 0;
    if (n >= MAX_GIVE_BACKS) return;
    givenBack.set(jobId, n + 1);
    giveBack.add(jobId);
    if (givenBack.size > 10_000) givenBack.delete(givenBack.keys().next().value!);
  }

  const beat = async () => {
    // An upsert: a row another process removed (this one looked dead while it was stalled) comes back.
    if (live.size) await beatFor(sql, [...live]);
    reachableSince ??= Date.now();
  };
  const releaseOwn = async () => {
    if (giveBack.size) {
      const ids = [...giveBack];
      await giveBackAttempts(sql, ids);
      for (const id of ids) giveBack.delete(id);
    }
    if (gone.size) {
      const ids = [...gone];
      await sql`select graphile_worker.force_unlock_workers(${ids}::text[])`;
      await sql`delete from worker_heartbeats where worker_id = any(${ids}::text[])`;
      for (const id of ids) gone.delete(id);
    }
  };
  const sweep = async () => {
    if (reachableSince === undefined || Date.now() - reachableSince < opts.staleMs) return;
    await releaseDeadWorkers(sql, opts.staleMs, live, log);
  };
  const releaseOrphans = async () => {
    const now = Date.now();
    const idle = [...idleSince].filter(([, since]) => now - since >= ORPHAN_GRACE_MS).map(([id]) => id);
    const locked = await jobsLockedBy(sql, idle, ORPHAN_GRACE_MS / 1000);
    const next = new Map<string, { workerId: string; seenAt: number }>();
    const orphans = new Map<string, string[]>();
    for (const j of locked) {
      const seen = suspects.get(j.id);
      // Idle since before the previous tick saw this lock: no job of this process has run on it since.
      if (seen?.workerId === j.workerId && (idleSince.get(j.workerId) ?? now) <= seen.seenAt)
        orphans.set(j.workerId, [...(orphans.get(j.workerId) ?? []), j.id]);
      else next.set(j.id, { workerId: j.workerId, seenAt: now });
    }
    suspects = next;
    for (const [workerId, ids] of orphans) {
      await releaseLockedJobs(sql, workerId, ids);
      log.warn(
        { workerId, jobs: ids },
        'released jobs locked by a live worker that is not running them (a reply lost with its connection)',
      );
    }
  };
  const tick = () =>
    void beat()
      .then(releaseOwn)
      .then(sweep)
      .then(releaseOrphans)
      .catch((err) => {
        reachableSince = undefined;
        // An outage is logged once by the availability tracker, not every heartbeat.
        if (isDatabaseUnavailable(err)) log.debug({ err }, 'recovery sweep failed: database unreachable');
        else log.warn({ err }, 'recovery sweep failed');
      });
  const timer = setInterval(tick, opts.heartbeatMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      // The attempts of jobs cut short by the stop itself go back now, not at a next tick.
      await releaseOwn().catch((err: unknown) => log.debug({ err }, 'could not give back attempts at stop'));
      const ids = [...live, ...gone];
      if (ids.length) await sql`delete from worker_heartbeats where worker_id in ${sql(ids)}`.catch(() => {});
    },
  };
}
