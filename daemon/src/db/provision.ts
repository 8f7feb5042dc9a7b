// Provisions docsift's embedded default database: a private PostgreSQL cluster with pgvector,
// used when no DATABASE_URL is configured. Files it manages:
//   <dataDir>/               the cluster; owned by the postgres OS user when docsift runs as root
//                            (postgres refuses to run as root), else by the current user
//   <dataDir>/docsift.conf   settings docsift owns, included from postgresql.conf; its presence
//                            marks a finished setup
//   <dataDir>/log/           server logs, one file per weekday, overwritten weekly
//   <dataDir>/startup.log    pg_ctl output before the logging collector takes over
//   <dataDir>.password       password of superuser "docsift", mode 0600, owned by whoever runs
//                            docsift; kept outside the cluster so postgres itself never needs it
//   <dataDir>.lock           held while provisioning so two processes never initdb at once
// The server is started detached by pg_ctl and keeps running after the daemon exits, so later
// starts are fast; stopLocalPostgres() stops it.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { appendFile, chmod, chown, mkdir, open, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

type Log = (msg: string) => void;
export interface LocalPostgresOptions {
  dataDir: string;
  port?: number;
  database?: string;
  log?: Log;
  pgBinDir?: string;
}
export interface LocalPostgres {
  databaseUrl: string;
  port: number;
  dataDir: string;
}

const superuser = 'docsift';
const installScript = fileURLToPath(new URL('../../../scripts/install-pgvector.sh', import.meta.url));

export async function ensureLocalPostgres(opts: LocalPostgresOptions): Promise<LocalPostgres> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const port = opts.port ?? 54329;
  const database = opts.database ?? 'docsift';
  await mkdir(path.dirname(dataDir), { recursive: true });
  const release = await acquireLock(`${dataDir}.lock`, log);
  try {
    const binDir = await ensureBinaries(opts.pgBinDir, log);
    const runner = await makeRunner(log);
    if (runner.asPostgres) await makeTraversable(path.dirname(dataDir), runner, log);
    const password = await ensureCluster(binDir, dataDir, port, runner, log);
    const actualPort = await ensureRunning(binDir, dataDir, port, runner, log);
    await ensureDatabase(actualPort, password, database, log);
    const databaseUrl = `postgres://${superuser}:${password}@127.0.0.1:${actualPort}/${encodeURIComponent(database)}`;
    return { databaseUrl, port: actualPort, dataDir };
  } finally {
    await release();
  }
}

/** Stops the cluster in dataDir if it is running; resolves to whether it was running. */
export async function stopLocalPostgres(dataDir: string, opts: { pgBinDir?: string; log?: Log } = {}): Promise<boolean> {
  const log = opts.log ?? (() => {});
  dataDir = path.resolve(dataDir);
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return false;
  const release = await acquireLock(`${dataDir}.lock`, log);
  try {
    const binDir = opts.pgBinDir ?? (await binDirForCluster(dataDir)) ?? findPgBinDir();
    if (!binDir) throw new Error(`no PostgreSQL binaries found to stop the cluster in ${dataDir}`);
    const runner = await makeRunner(log);
    const status = await pgRun(runner, path.join(binDir, 'pg_ctl'), ['status', '-D', dataDir]);
    if (status.code !== 0) return false;
    log(`stopping PostgreSQL in ${dataDir}`);
    await pgRun(runner, path.join(binDir, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60'], true);
    return true;
  } finally {
    await release();
  }
}

/** Highest /usr/lib/postgresql/NN/bin with a server, else the bindir of pg_config on PATH. */
export function findPgBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  let versions: string[] = [];
  try {
    versions = fs.readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v));
  } catch {
    /* not a Debian-style layout */
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(root, v, 'bin');
    if (isServerBinDir(bin)) return bin;
  }
  try {
    const bin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (isServerBinDir(bin)) return bin;
  } catch {
    /* no pg_config on PATH */
  }
  return undefined;
}

/** pgvector is usable when vector.control sits in the extension dir of this server's sharedir. */
export function hasPgvector(binDir: string): boolean {
  let shareDirs: string[];
  try {
    shareDirs = [
      execFileSync(path.join(binDir, 'pg_config'), ['--sharedir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    ];
  } catch {
    // pg_config is optional on Debian (postgresql-server-dev); guess from the usual layouts.
    const major = debianMajor(binDir);
    shareDirs = [path.resolve(binDir, '../share/postgresql'), path.resolve(binDir, '../share')];
    if (major) shareDirs.unshift(`/usr/share/postgresql/${major}`);
  }
  return shareDirs.some((d) => fs.existsSync(path.join(d, 'extension', 'vector.control')));
}

function isServerBinDir(dir: string): boolean {
  return ['postgres', 'initdb', 'pg_ctl'].every((b) => {
    try {
      fs.accessSync(path.join(dir, b), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function debianMajor(binDir: string): string | undefined {
  return /^\/usr\/lib\/postgresql\/(\d+)\/bin\/?$/.exec(path.resolve(binDir))?.[1];
}

async function binDirForCluster(dataDir: string): Promise<string | undefined> {
  const version = (await readFile(path.join(dataDir, 'PG_VERSION'), 'utf8').catch(() => '')).trim();
  const bin = `/usr/lib/postgresql/${version}/bin`;
  return version && isServerBinDir(bin) ? bin : undefined;
}

function needPostgres(reason: string): Error {
  const sudo = fs.existsSync(installScript) && onPath('apt-get') ? `, or install them once with \`sudo bash ${installScript}\`` : '';
  return new Error(
    `${reason}. docsift needs PostgreSQL with the pgvector extension: set DATABASE_URL to a PostgreSQL that has ` +
      `pgvector (e.g. postgres://user:pass@host:5432/docsift), or run \`docker compose up\`${sudo}.`,
  );
}

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => {
    try {
      fs.accessSync(path.join(d, cmd), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

async function ensureBinaries(pgBinDir: string | undefined, log: Log): Promise<string> {
  if (pgBinDir && !isServerBinDir(pgBinDir)) throw needPostgres(`pgBinDir ${pgBinDir} has no PostgreSQL server (postgres, initdb, pg_ctl)`);
  const binDir = pgBinDir ?? findPgBinDir();
  if (binDir && hasPgvector(binDir)) return binDir;
  const why = binDir
    ? `pgvector is not installed for the PostgreSQL in ${binDir}`
    : 'no PostgreSQL server found (looked in /usr/lib/postgresql/*/bin and pg_config on PATH)';
  const major = binDir ? debianMajor(binDir) : undefined;
  // The installer only knows Debian's package layout, so custom builds are left to the user.
  if (binDir && !major) throw needPostgres(why);
  if (process.getuid?.() !== 0) throw needPostgres(`${why}, and installing needs root`);
  if (!onPath('apt-get')) throw needPostgres(`${why}, and automatic install only supports Debian/Ubuntu (no apt-get)`);
  if (!fs.existsSync(installScript)) throw needPostgres(`${why}, and the installer ${installScript} is missing`);
  log(`${why}; installing with ${installScript}`);
  await runInstallScript(major, log);
  const found = pgBinDir ?? findPgBinDir();
  if (!found || !hasPgvector(found)) throw needPostgres(`${installScript} finished but PostgreSQL with pgvector is still not found`);
  return found;
}

function runInstallScript(major: string | undefined, log: Log): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [installScript, ...(major ? [major] : [])], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    const onLine = (line: string): void => {
      if (line.startsWith('==> ')) log(line.slice(4));
      tail.push(line);
      if (tail.length > 40) tail.shift();
    };
    for (const stream of [child.stdout, child.stderr]) {
      let buf = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (buf + chunk).split('\n');
        buf = lines.pop() ?? '';
        lines.forEach(onLine);
      });
    }
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(needPostgres(`installing PostgreSQL/pgvector failed (exit ${code}):\n${tail.join('\n')}\n`));
    });
  });
}

interface Runner {
  asPostgres: boolean;
  uid: number;
  gid: number;
  groups: number[];
}

async function makeRunner(log: Log): Promise<Runner> {
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) return { asPostgres: false, uid, gid: process.getgid?.() ?? -1, groups: process.getgroups?.() ?? [] };
  let id = await run('id', ['postgres']);
  if (id.code !== 0) {
    log('creating system user postgres to run the database (PostgreSQL refuses to run as root)');
    const hasGroup = (await run('getent', ['group', 'postgres'])).code === 0;
    const group = hasGroup ? ['-g', 'postgres'] : ['--user-group'];
    await run(
      'useradd',
      ['--system', ...group, '--home-dir', '/var/lib/postgresql', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      true,
    );
    id = await run('id', ['postgres'], true);
  }
  // "uid=101(postgres) gid=104(postgres) groups=104(postgres),103(ssl-cert)"
  const num = (key: string): number => Number(new RegExp(`${key}=(\\d+)`).exec(id.stdout)?.[1] ?? -1);
  const groups = [...(/groups=(.*)/.exec(id.stdout)?.[1] ?? '').matchAll(/(\d+)\(/g)].map((m) => Number(m[1]));
  return { asPostgres: true, uid: num('uid'), gid: num('gid'), groups };
}

/** Root's home is typically 0700; give the postgres user traverse-only access where it lacks it. */
async function makeTraversable(dir: string, runner: Runner, log: Log): Promise<void> {
  for (let p = dir; ; p = path.dirname(p)) {
    const st = await stat(p);
    const bit = st.uid === runner.uid ? 0o100 : runner.groups.includes(st.gid) || st.gid === runner.gid ? 0o010 : 0o001;
    if (!(st.mode & bit)) {
      await chmod(p, (st.mode & 0o7777) | bit);
      log(
        `added traverse-only permission (${bit === 0o001 ? 'o' : bit === 0o010 ? 'g' : 'u'}+x) on ${p} so the postgres user can reach the data directory`,
      );
    }
    if (p === path.dirname(p)) return;
  }
}

async function ensureCluster(binDir: string, dataDir: string, port: number, runner: Runner, log: Log): Promise<string> {
  const pwFile = `${dataDir}.password`;
  const confFile = path.join(dataDir, 'docsift.conf');
  const entries = await readdir(dataDir).catch(() => undefined);
  if (entries?.includes('docsift.conf')) {
    const password = (await readFile(pwFile, 'utf8').catch(() => '')).trim();
    if (!password)
      throw new Error(`password file ${pwFile} for the cluster in ${dataDir} is missing; restore it or remove ${dataDir} to start over`);
    await writeConfig(confFile, dataDir, port, runner, log);
    return password;
  }
  if (entries && entries.length > 0) {
    throw new Error(`${dataDir} is not empty but was not set up by docsift (no docsift.conf); remove it or choose another data directory`);
  }
  // Saved before initdb so a crash right after initdb cannot lose it.
  const password = randomBytes(24).toString('base64url');
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  await chown(dataDir, runner.uid, runner.gid);
  // initdb reads the password from a file the postgres user can open; it lives only for initdb.
  const initPw = `${dataDir}.initdb-pw`;
  await writeFile(initPw, password, { mode: 0o600 });
  await chown(initPw, runner.uid, runner.gid);
  log(`initialising PostgreSQL cluster in ${dataDir}`);
  const initdb = path.join(binDir, 'initdb');
  const args = [
    '-D',
    dataDir,
    '-U',
    superuser,
    `--pwfile=${initPw}`,
    '--auth-local=peer',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-instructions',
  ];
  try {
    const first = await pgRun(runner, initdb, [...args, '--locale=C.UTF-8']);
    // Some minimal images lack a C.UTF-8 locale; plain C sorts bytewise, which is fine for docsift.
    if (first.code !== 0) await pgRun(runner, initdb, [...args, '--locale=C'], true);
  } finally {
    await unlink(initPw).catch(() => {});
  }
  await appendFile(path.join(dataDir, 'postgresql.conf'), "\n# settings managed by docsift\ninclude_if_exists = 'docsift.conf'\n");
  await writeConfig(confFile, dataDir, port, runner, log);
  return password;
}

async function writeConfig(confFile: string, dataDir: string, port: number, runner: Runner, log: Log): Promise<void> {
  const quote = (v: string): string => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  // Unix socket paths are limited to 107 bytes; docsift connects over TCP anyway.
  const socketDir = `${dataDir}/.s.PGSQL.${port}`.length < 100 ? dataDir : '';
  const settings: Record<string, string | number> = {
    listen_addresses: quote('127.0.0.1'),
    port,
    unix_socket_directories: quote(socketDir),
    // Modest sizes for a small (2-core) machine shared with the daemon and its workers.
    max_connections: 100,
    shared_buffers: quote('256MB'),
    effective_cache_size: quote('1GB'),
    work_mem: quote('16MB'),
    maintenance_work_mem: quote('256MB'), // HNSW index builds are much faster when the graph fits
    max_wal_size: quote('1GB'),
    max_parallel_workers_per_gather: 1,
    max_parallel_maintenance_workers: 1,
    random_page_cost: 1.1,
    logging_collector: 'on',
    log_directory: quote('log'),
    log_filename: quote('postgresql-%a.log'),
    log_truncate_on_rotation: 'on',
    log_rotation_age: quote('1d'),
    log_rotation_size: 0,
  };
  const text = `# Written by docsift (daemon/src/db/provision.ts); rewritten on start; override with ALTER SYSTEM.\n${Object.entries(
    settings,
  )
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n')}\n`;
  if ((await readFile(confFile, 'utf8').catch(() => '')) === text) return;
  if (fs.existsSync(confFile)) log(`updated ${confFile}; changes apply on the next PostgreSQL restart`);
  await writeFile(confFile, text, { mode: 0o600 });
  await chown(confFile, runner.uid, runner.gid);
}

async function ensureRunning(binDir: string, dataDir: string, port: number, runner: Runner, log: Log): Promise<number> {
  const pgCtl = path.join(binDir, 'pg_ctl');
  const status = await pgRun(runner, pgCtl, ['status', '-D', dataDir]);
  if (status.code !== 0) {
    log(`starting PostgreSQL on 127.0.0.1:${port} (data in ${dataDir}; it keeps running after docsift exits)`);
    const logFile = path.join(dataDir, 'startup.log');
    const start = await pgRun(runner, pgCtl, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60']);
    if (start.code !== 0) {
      const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
      throw new Error(`could not start PostgreSQL in ${dataDir}: ${start.stderr.trim()}\n${tail}`);
    }
  }
  // Line 4 of postmaster.pid is the port the running server actually listens on.
  const pid = await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8');
  const actual = Number(pid.split('\n')[3]);
  if (!actual) throw new Error(`cannot read the port from ${dataDir}/postmaster.pid`);
  if (actual !== port)
    log(`PostgreSQL in ${dataDir} is already running on port ${actual}, not ${port}; using ${actual} until it is restarted`);
  return actual;
}

async function ensureDatabase(port: number, password: string, database: string, log: Log): Promise<void> {
  const connect = (db: string): postgres.Sql =>
    postgres({ host: '127.0.0.1', port, user: superuser, password, database: db, max: 1, connect_timeout: 10, onnotice: () => {} });
  let sql = connect(database);
  try {
    try {
      await sql`create extension if not exists vector`;
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '3D000') throw err; // 3D000: database does not exist
    }
    await sql.end();
    const admin = connect('postgres');
    try {
      log(`creating database ${database}`);
      await admin`create database ${admin(database)}`;
    } finally {
      await admin.end();
    }
    sql = connect(database);
    await sql`create extension if not exists vector`;
  } finally {
    await sql.end();
  }
}

/**
 * Exclusive lock via O_EXCL create of a file holding our pid. A lock whose pid is dead (or that
 * stayed empty for 10 s, i.e. its writer died mid-create) is stale and gets removed.
 */
async function acquireLock(lockPath: string, log: Log): Promise<() => Promise<void>> {
  const deadline = Date.now() + 15 * 60_000; // a pgvector source build by the holder can take a while
  let noted = 0;
  for (;;) {
    try {
      const fh = await open(lockPath, 'wx', 0o644);
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return async () => {
        const owner = await readFile(lockPath, 'utf8').catch(() => '');
        if (owner.trim() === String(process.pid)) await unlink(lockPath).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const st = await stat(lockPath).catch(() => undefined);
    const pid = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
    if (!st) continue;
    if (pid ? !isAlive(pid) : Date.now() - st.mtimeMs > 10_000) {
      // Re-check the inode right before unlinking so we never remove a lock that was just re-taken.
      if ((await stat(lockPath).catch(() => undefined))?.ino === st.ino) {
        log(`removing stale lock ${lockPath} (pid ${pid || 'unknown'} is gone)`);
        await unlink(lockPath).catch(() => {});
      }
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${lockPath} held by pid ${pid}; delete it if that process is not docsift`);
    if (Date.now() - noted > 10_000) {
      noted = Date.now();
      log(`waiting for pid ${pid} to finish setting up PostgreSQL (${lockPath})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists but belongs to another user
  }
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], mustSucceed = false, cwd?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      if (err && (mustSucceed || typeof err.code !== 'number')) {
        reject(new Error(`${[cmd, ...args].join(' ')} failed: ${stderr.trim() || err.message}`));
      } else resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a PostgreSQL tool as the cluster owner; cwd "/" since root's cwd may be unreadable to postgres. */
function pgRun(runner: Runner, cmd: string, args: string[], mustSucceed = false): Promise<RunResult> {
  return runner.asPostgres ? run('runuser', ['-u', 'postgres', '--', cmd, ...args], mustSucceed, '/') : run(cmd, args, mustSucceed, '/');
}
