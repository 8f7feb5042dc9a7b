// `admin pitr-backup`, `pitr-info` and `pitr-restore`: point-in-time recovery of the embedded
// cluster (PITR_REPO), run beside or instead of the daemon on the machine that holds DATA_DIR.
import { required, type StandaloneCommand, type StandaloneContext, UsageError } from '../admin/command.js';
import { formatBytes } from '../backup/progress.js';
import { openPitr, pitrInfo, restoreToTime, takeBaseBackup } from './operations.js';

const open = (ctx: StandaloneContext) => openPitr(ctx.config, (m) => ctx.logger.info({ component: 'pitr' }, m));

export const PITR_COMMANDS: StandaloneCommand[] = [
  {
    name: 'pitr-backup',
    examples: ['pitr-backup', 'pitr-backup --full --json'],
    usage: `  pitr-backup [--full]                A base backup of the embedded PostgreSQL into PITR_REPO (the worker takes
        one daily): full when none is younger than BLOB_RETENTION_DAYS - 1, else incremental.`,
    options: { full: { type: 'boolean' } },
    async run(ctx, a) {
      const p = await open(ctx);
      const b = await takeBaseBackup(p, ctx.clock.now(), { full: a.flag('full') });
      a.print(`Took ${b.type} backup ${b.label} (${formatBytes(b.repo_bytes)} added to the repository).`, b);
    },
  },
  {
    name: 'pitr-info',
    examples: ['pitr-info', 'pitr-info --json'],
    usage: '  pitr-info                           The base backups in PITR_REPO and the moments a restore can reach.',
    async run(ctx, a) {
      const info = await pitrInfo(await open(ctx), ctx.clock.now());
      a.print(
        [
          `Repository ${info.repo}, recovery window ${info.retention_days} days (BLOB_RETENTION_DAYS).`,
          info.window ? `Restorable: any moment from ${info.window.from} to ${info.window.to}.` : 'No base backup yet: run pitr-backup.',
          ...info.backups.map((b) => `  ${b.label}  ${b.type.padEnd(4)}  ${b.started_at} → ${b.stopped_at}  ${formatBytes(b.repo_bytes)}`),
        ].join('\n'),
        info,
      );
    },
  },
  {
    name: 'pitr-restore',
    examples: ['pitr-restore --to 2026-05-01T09:30:00Z', "pitr-restore --to '2026-05-01 11:30:00+02:00' --json"],
    usage: `  pitr-restore --to TIME              Restore the embedded PostgreSQL to a moment of the recovery window (stop every
        docsift process first; a time zone is required). Documents uploaded later are gone, documents
        deleted later are back with their files.`,
    options: { to: { type: 'string' } },
    async run(ctx, a) {
      const [to] = required(a, 'to');
      if (!/(Z|[+-]\d\d(:?\d\d)?)$/i.test(to!.trim())) throw new UsageError('--to needs a time zone: 2026-05-01T09:30:00Z or …+02:00.');
      const target = new Date(to!);
      if (Number.isNaN(target.getTime())) throw new UsageError(`--to "${to}" is not a time.`);
      const r = await restoreToTime(await open(ctx), target, ctx.clock.now(), ctx.config);
      a.print(
        `Restored the database to ${r.target} in ${r.seconds} s. Start docsift again; stored files of documents uploaded after that moment are removed by the hourly sweep after ORPHAN_BLOB_GRACE_HOURS.`,
        r,
      );
    },
  },
];
