// Point-in-time recovery of the embedded cluster: base backups, what can be restored, and restoring
// to a moment. WAL archiving itself is set up by provisioning (local-pg/pgbackrest.ts).
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import type { Config } from '../config.js';
import { findPgBinDir } from '../local-pg/binaries.js';
import { embeddedPostgres } from '../local-pg/from-config.js';
import { type Cluster, clusterOf, describeRepo, pgbackrest } from '../local-pg/pgbackrest.js';
import { type PitrSettings, pitrSettings } from '../local-pg/pitr-settings.js';
import { makeRunner, pgRun, type Log, type Runner } from '../local-pg/run.js';

const DAY = 86_400_000;

export interface Pitr {
  settings: PitrSettings;
  cluster: Cluster;
  runner: Runner;
  binDir: string;
  log: Log;
}

/** The embedded cluster with archiving configured and running; throws when PITR_REPO is unset. */
export async function openPitr(config: Config, log: Log): Promise<Pitr> {
  const settings = pitrSettings(config);
  if (!settings)
    throw new Error('point-in-time recovery is off: start docsift once with PITR_REPO set (docs/operations.md says how to turn it on).');
  await embeddedPostgres(config, log);
  const binDir = findPgBinDir();
  if (!binDir) throw new Error('no PostgreSQL server binaries found');
  return {
    settings,
    cluster: await clusterOf(path.resolve(config.DATA_DIR, 'postgres'), config.PG_PORT),
    runner: await makeRunner(log),
    binDir,
    log,
  };
}

export interface BaseBackup {
  label: string;
  type: 'full' | 'diff' | 'incr';
  started_at: string;
  stopped_at: string;
  /** Bytes the backup adds to the repository. */
  repo_bytes: number;
}

export interface PitrInfo {
  repo: string;
  backups: BaseBackup[];
  /** The moments a restore can reach: from the end of the oldest backup still inside the window, to the last archived WAL. */
  window: { from: string; to: string } | null;
  retention_days: number;
}

interface InfoJson {
  backup: {
    label: string;
    type: 'full' | 'diff' | 'incr';
    timestamp: { start: number; stop: number };
    info: { repository: { delta: number } };
  }[];
  archive: { max: string | null }[];
}

export async function pitrInfo(p: Pitr, now: Date): Promise<PitrInfo> {
  const [stanza] = JSON.parse(await pgbackrest(p.settings, p.cluster, p.runner, ['info', '--output=json'])) as InfoJson[];
  const backups = (stanza?.backup ?? []).map((b) => ({
    label: b.label,
    type: b.type,
    started_at: new Date(b.timestamp.start * 1000).toISOString(),
    stopped_at: new Date(b.timestamp.stop * 1000).toISOString(),
    repo_bytes: b.info.repository.delta,
  }));
  const floor = now.getTime() - p.settings.retentionDays * DAY;
  const first = backups[0];
  return {
    repo: describeRepo(p.settings),
    backups,
    window: first ? { from: new Date(Math.max(Date.parse(first.stopped_at), floor)).toISOString(), to: now.toISOString() } : null,
    retention_days: p.settings.retentionDays,
  };
}

/**
 * A base backup: full when none is younger than the retention window less a day (so one always
 * starts inside it), else incremental. pgBackRest then expires what the window no longer needs.
 */
export async function takeBaseBackup(p: Pitr, now: Date, opts: { full?: boolean } = {}): Promise<BaseBackup> {
  const before = await pitrInfo(p, now);
  const lastFull = before.backups.filter((b) => b.type === 'full').at(-1);
  const fresh = lastFull && now.getTime() - Date.parse(lastFull.started_at) < (p.settings.retentionDays - 1) * DAY;
  const type = opts.full || !fresh ? 'full' : 'incr';
  await pgbackrest(p.settings, p.cluster, p.runner, ['backup', `--type=${type}`]);
  const after = await pitrInfo(p, now);
  return after.backups.at(-1)!;
}

async function otherConnections(c: Cluster): Promise<number> {
  const sql = postgres({
    host: '127.0.0.1',
    port: c.port,
    user: 'docsift',
    password: c.password,
    database: 'postgres',
    max: 1,
    onnotice: () => {},
  });
  try {
    const [r] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()`;
    return r!.n;
  } finally {
    await sql.end();
  }
}

/** Polls until the restored server has finished recovery and promoted, or fails with its log. */
async function waitForPromotion(p: Pitr, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const sql = postgres({
      host: '127.0.0.1',
      port: p.cluster.port,
      user: 'docsift',
      password: p.cluster.password,
      database: 'postgres',
      max: 1,
      connect_timeout: 5,
      onnotice: () => {},
    });
    try {
      const [r] = await sql<{ rec: boolean }[]>`select pg_is_in_recovery() as rec`;
      if (!r!.rec) return;
    } catch (err) {
      const status = await pgRun(p.runner, path.join(p.binDir, 'pg_ctl'), ['status', '-D', p.cluster.dataDir]);
      if (status.code !== 0) throw new Error(`PostgreSQL stopped during recovery (${(err as Error).message}):\n${await serverLogTail(p)}`);
    } finally {
      await sql.end();
    }
    if (Date.now() > end) throw new Error(`recovery did not finish within ${timeoutMs / 1000} s; it goes on in the background`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The last lines of the server's newest log file (PostgreSQL's reason for stopping). */
async function serverLogTail(p: Pitr): Promise<string> {
  const dir = path.join(p.cluster.dataDir, 'log');
  const files = await readdir(dir).catch(() => [] as string[]);
  const newest = (
    await Promise.all(files.map(async (f) => ({ f, t: (await stat(path.join(dir, f)).catch(() => undefined))?.mtimeMs ?? 0 })))
  ).sort((a, b) => b.t - a.t)[0];
  if (!newest) return '';
  return (await readFile(path.join(dir, newest.f), 'utf8')).split('\n').slice(-12).join('\n');
}

/** `2026-05-01 12:00:00.123+00`, as recovery_target_time reads it. */
const pgTime = (d: Date) => `${d.toISOString().replace('T', ' ').replace('Z', '')}+00`;

/**
 * Restores the cluster to `target`: refuses a moment outside the window, or while anything is
 * connected (every docsift process must be stopped); archives the WAL written so far, stops the
 * server, restores (delta: unchanged files stay), starts it and waits until it has replayed up to
 * `target` and promoted.
 */
export async function restoreToTime(p: Pitr, target: Date, now: Date, config: Config): Promise<{ target: string; seconds: number }> {
  const started = performance.now();
  if (target.getTime() > now.getTime()) throw new Error(`${target.toISOString()} is in the future`);
  const floor = now.getTime() - p.settings.retentionDays * DAY;
  if (target.getTime() < floor)
    throw new Error(
      `${target.toISOString()} is more than BLOB_RETENTION_DAYS (${p.settings.retentionDays}) days ago: stored files of documents deleted since may be purged`,
    );
  const window = (await pitrInfo(p, now)).window;
  if (!window) throw new Error('no base backup in the repository yet: run pitr-backup (restores start from one)');
  if (target.getTime() < Date.parse(window.from))
    throw new Error(
      `${target.toISOString()} is before the oldest restorable moment, ${window.from} (the end of the oldest base backup in the window)`,
    );
  const open = await otherConnections(p.cluster);
  if (open > 0)
    throw new Error(
      `${open} connection(s) to the database are open: stop every docsift process (serve, worker) first, then run this again`,
    );
  // Archives the current WAL segment and waits for it, so the moments up to now can be reached.
  await pgbackrest(p.settings, p.cluster, p.runner, ['check']);
  p.log(`stopping PostgreSQL in ${p.cluster.dataDir}`);
  await pgRun(p.runner, path.join(p.binDir, 'pg_ctl'), ['stop', '-D', p.cluster.dataDir, '-m', 'fast', '-w', '-t', '60'], true);
  p.log(`restoring to ${target.toISOString()} from ${describeRepo(p.settings)}`);
  await pgbackrest(p.settings, p.cluster, p.runner, [
    'restore',
    '--delta',
    '--type=time',
    `--target=${pgTime(target)}`,
    '--target-action=promote',
  ]);
  // The backup holds the Unix socket's lock file of the server that ran then; a server that sees
  // that process id alive (an unreaped process, or the id reused) refuses to start.
  for (const f of await readdir(p.cluster.dataDir))
    if (/^\.s\.PGSQL\.\d+(\.lock)?$/.test(f)) await unlink(path.join(p.cluster.dataDir, f)).catch(() => {});
  const start = await pgRun(p.runner, path.join(p.binDir, 'pg_ctl'), [
    'start',
    '-D',
    p.cluster.dataDir,
    '-l',
    path.join(p.cluster.dataDir, 'startup.log'),
    '-w',
    '-t',
    '600',
  ]);
  if (start.code !== 0) throw new Error(`PostgreSQL did not start after the restore: ${start.stderr.trim()}\n${await serverLogTail(p)}`);
  await waitForPromotion(p, 30 * 60_000);
  await embeddedPostgres(config, p.log);
  return { target: target.toISOString(), seconds: Math.round((performance.now() - started) / 100) / 10 };
}
