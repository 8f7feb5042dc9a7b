import os from 'node:os';
import type { WorkerEvents } from 'graphile-worker';
import type { Sql } from '../db/client.js';
import type { Logger } from '../logger.js';

export interface RecoveryOptions {
  heartbeatMs: number;
  /** A worker silent for this long is considered dead and its jobs are unlocked. */
  staleMs: number;
}

/**
 * Heartbeats for this process's workers, plus a sweep that force-unlocks jobs held by workers that
 * stopped heart-beating (a killed process). graphile-worker then retries those jobs at once; the
 * jobs themselves are idempotent, so a job that was mid-flight runs again without duplicating work.
 */
export function startCrashRecovery(sql: Sql, events: WorkerEvents, logger: Logger, opts: RecoveryOptions): { stop(): Promise<void> } {
  const workerIds = new Set<string>();
  const log = logger.child({ component: 'recovery' });
  const register = async (id: string) => {
    workerIds.add(id);
    await sql`
      insert into worker_heartbeats (worker_id, hostname, pid) values (${id}, ${os.hostname()}, ${process.pid})
      on conflict (worker_id) do update set last_seen = now()`;
  };
  events.on('worker:create', ({ worker }) => void register(worker.workerId).catch((err) => log.warn({ err }, 'heartbeat register failed')));

  const beat = async () => {
    if (workerIds.size) await sql`update worker_heartbeats set last_seen = now() where worker_id in ${sql([...workerIds])}`;
  };
  const sweep = async () => {
    const staleSec = opts.staleMs / 1000;
    const rows = await sql<{ locked_by: string }[]>`
      select distinct j.locked_by
        from graphile_worker._private_jobs j
        left join worker_heartbeats h on h.worker_id = j.locked_by
       where j.locked_by is not null
         and (h.last_seen < now() - make_interval(secs => ${staleSec})
              or (h.worker_id is null and j.locked_at < now() - make_interval(secs => ${staleSec * 2})))`;
    const dead = rows.map((r) => r.locked_by).filter((id) => !workerIds.has(id));
    if (dead.length) {
      await sql`select graphile_worker.force_unlock_workers(${dead}::text[])`;
      log.warn({ workers: dead }, 'released jobs of workers that stopped responding');
    }
    await sql`delete from worker_heartbeats where last_seen < now() - interval '1 day'`;
  };
  const tick = () =>
    void beat()
      .then(sweep)
      .catch((err) => log.warn({ err }, 'recovery sweep failed'));
  const timer = setInterval(tick, opts.heartbeatMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      if (workerIds.size) await sql`delete from worker_heartbeats where worker_id in ${sql([...workerIds])}`.catch(() => {});
    },
  };
}
