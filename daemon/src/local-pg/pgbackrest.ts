// pgBackRest for the embedded cluster: its configuration written at every start, WAL archiving turned
// on (a restart when archive_mode changes, as PostgreSQL requires), the stanza created, and its
// commands run as the cluster's owner. It connects to PostgreSQL over TCP with the superuser's
// password (PGHOST, PGPASSWORD in its environment, never on its command line): local socket
// connections use peer authentication, which maps no OS user to the `docsift` role.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { archiveSettings, confFile, type PitrSettings, pgbackrestConf, savedSettingsFile, STANZA } from './pitr-settings.js';
import { makeTraversable, pgRun, type Log, type Runner } from './run.js';

const SEARCH = ['/usr/bin', '/usr/local/bin', '/usr/sbin', '/opt/homebrew/bin'];

/** The pgbackrest binary; throws how to install it. */
export function findPgbackrest(): string {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), ...SEARCH].filter(Boolean)) {
    const file = path.join(dir, 'pgbackrest');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  throw new Error(
    'PITR_REPO needs pgBackRest, which is not installed: apt-get install -y pgbackrest (Debian/Ubuntu; `sudo bash scripts/install-test-deps.sh` installs it too), or unset PITR_REPO.',
  );
}

export interface Cluster {
  dataDir: string;
  port: number;
  password: string;
}

export interface PgbackrestResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `pgbackrest --stanza=docsift <args>` as the cluster's owner. */
export function runPgbackrest(s: PitrSettings, cluster: Cluster, runner: Runner, args: string[]): Promise<PgbackrestResult> {
  const bin = findPgbackrest();
  const argv = [`--config=${confFile(s)}`, `--stanza=${STANZA}`, ...args];
  const [file, list] = runner.asPostgres ? ['runuser', ['-u', 'postgres', '--', bin, ...argv]] : [bin, argv];
  const env = { ...process.env, PGHOST: '127.0.0.1', PGPASSWORD: cluster.password, PGPORT: String(cluster.port) };
  return new Promise((resolve) => {
    execFile(file, list, { cwd: '/', env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr: stderr || (err && typeof err.code !== 'number' ? err.message : '') });
    });
  });
}

/** Like runPgbackrest, failing with pgBackRest's own message. */
export async function pgbackrest(s: PitrSettings, cluster: Cluster, runner: Runner, args: string[]): Promise<string> {
  const r = await runPgbackrest(s, cluster, runner, args);
  if (r.code !== 0) throw new Error(`pgbackrest ${args[0]} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/**
 * Writes pgbackrest.conf and the directories pgBackRest writes to (owned by the cluster's owner,
 * which runs archive-push), and returns the settings docsift.conf gains.
 */
export async function prepareArchiving(
  s: PitrSettings,
  cluster: Omit<Cluster, 'password'>,
  runner: Runner,
  log: Log,
): Promise<Record<string, string>> {
  findPgbackrest();
  const dirs = [s.home, ...['log', 'lock', 'spool'].map((d) => path.join(s.home, d)), ...(s.repo.type === 'dir' ? [s.repo.path] : [])];
  for (const d of dirs) {
    await mkdir(d, { recursive: true, mode: 0o750 });
    await chown(d, runner.uid, runner.gid);
  }
  if (runner.asPostgres) {
    // archive-push runs as the cluster's owner: it must reach the repository and the CA file.
    if (s.repo.type === 'dir') await makeTraversable(path.dirname(s.repo.path), runner, log);
    if (s.repo.type === 's3' && s.repo.caFile) await makeTraversable(path.dirname(s.repo.caFile), runner, log);
  }
  // S3 credentials may be in them: readable by the owner only.
  await writeFile(confFile(s), pgbackrestConf(s, cluster), { mode: 0o600 });
  await chown(confFile(s), runner.uid, runner.gid);
  await writeFile(savedSettingsFile(s.home), JSON.stringify(s), { mode: 0o600 });
  return archiveSettings(s);
}

/**
 * Once the cluster runs: a restart when archive_mode is not yet what docsift.conf says (it takes
 * effect only at server start), a reload for the other settings, then the stanza (idempotent).
 */
export async function ensureArchiving(s: PitrSettings, cluster: Cluster, binDir: string, runner: Runner, log: Log): Promise<void> {
  const sql = postgres({
    host: '127.0.0.1',
    port: cluster.port,
    user: 'docsift',
    password: cluster.password,
    database: 'postgres',
    max: 1,
    onnotice: () => {},
  });
  let restart = false;
  try {
    const [row] = await sql<{ setting: string }[]>`select setting from pg_settings where name = 'archive_mode'`;
    restart = row?.setting !== 'on';
    if (!restart) await sql`select pg_reload_conf()`;
  } finally {
    await sql.end();
  }
  if (restart) {
    log(`restarting PostgreSQL in ${cluster.dataDir} to turn on WAL archiving to ${describeRepo(s)}`);
    // -l: the server must not inherit pg_ctl's output pipes, or pg_ctl's caller waits on them forever.
    const logFile = path.join(cluster.dataDir, 'startup.log');
    await pgRun(
      runner,
      path.join(binDir, 'pg_ctl'),
      ['restart', '-D', cluster.dataDir, '-m', 'fast', '-w', '-t', '60', '-l', logFile],
      true,
    );
  }
  // Once per repository: stanza-create fails while a backup holds pgBackRest's lock.
  const marker = path.join(s.home, 'stanza');
  if ((await readFile(marker, 'utf8').catch(() => '')) === describeRepo(s)) return;
  const stanza = await runPgbackrest(s, cluster, runner, ['stanza-create']);
  if (stanza.code !== 0)
    throw new Error(`pgBackRest could not set up the repository ${describeRepo(s)} (exit ${stanza.code}): ${stanza.stderr.trim()}`);
  await writeFile(marker, describeRepo(s), { mode: 0o600 });
}

export function describeRepo(s: PitrSettings): string {
  return s.repo.type === 'dir' ? s.repo.path : `s3://${s.repo.bucket}${s.repo.prefix}`;
}

/** The embedded cluster's password and the port it runs on (postmaster.pid), or the configured port. */
export async function clusterOf(dataDir: string, port: number): Promise<Cluster> {
  const password = (await readFile(`${dataDir}.password`, 'utf8')).trim();
  const pid = await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '');
  return { dataDir, port: Number(pid.split('\n')[3]) || port, password };
}
