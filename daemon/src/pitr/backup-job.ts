import { defineJob } from '../jobs/queue.js';
import { pitrSettings } from '../local-pg/pitr-settings.js';
import type { AppDeps } from '../types.js';
import { openPitr, pitrInfo, takeBaseBackup } from './operations.js';

/** A base backup is due when the newest is older than this (the job looks every hour). */
const BACKUP_EVERY_MS = 23 * 3_600_000;

/**
 * With PITR_REPO: a base backup when none is younger than 23 hours, so one exists within an hour of
 * turning archiving on and then daily (restoring replays WAL from the newest backup before the
 * target, so daily backups bound that replay to a day). Without PITR_REPO: nothing.
 */
export async function pitrBackupIfDue(deps: AppDeps): Promise<boolean> {
  if (!pitrSettings(deps.config)) return false;
  const p = await openPitr(deps.config, (m) => deps.logger.info({ component: 'pitr' }, m));
  const now = deps.clock.now();
  const newest = (await pitrInfo(p, now)).backups.at(-1);
  if (newest && now.getTime() - Date.parse(newest.stopped_at) < BACKUP_EVERY_MS) return false;
  const b = await takeBaseBackup(p, now);
  deps.logger.info(b, 'took a base backup for point-in-time recovery');
  return true;
}

export const pitrBackupJob = defineJob<object>({
  identifier: 'pitr_backup',
  task: (deps) => async () => {
    await pitrBackupIfDue(deps);
  },
});
