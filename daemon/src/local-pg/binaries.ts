// Finding PostgreSQL server binaries with pgvector, and installing them (Debian/Ubuntu, as root)
// when none are found: scripts/install-pgvector.sh.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Log } from './run.js';

const installScript = fileURLToPath(new URL('../../../scripts/install-pgvector.sh', import.meta.url));

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

export async function binDirForCluster(dataDir: string): Promise<string | undefined> {
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

export async function ensureBinaries(pgBinDir: string | undefined, log: Log): Promise<string> {
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

/** scripts/apt.sh's exit status when another process kept apt's lock for DOCSIFT_APT_LOCK_TIMEOUT seconds. */
const APT_LOCKED = 75;

/** Runs the installer (`script`: tests pass a stand-in), forwarding its "==> " lines to `log`. */
export function runInstallScript(major: string | undefined, log: Log, script = installScript): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...(major ? [major] : [])], {
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
      else if (code === APT_LOCKED)
        reject(
          new Error(
            "Installing PostgreSQL and pgvector had to wait for another process holding apt's lock (an unattended upgrade, another apt-get), " +
              'and it was still held after DOCSIFT_APT_LOCK_TIMEOUT seconds (300 by default); nothing was installed. ' +
              'Start docsift again once that process has finished: the installation picks up from the start.',
          ),
        );
      else reject(needPostgres(`installing PostgreSQL/pgvector failed (exit ${code}):\n${tail.join('\n')}\n`));
    });
  });
}
