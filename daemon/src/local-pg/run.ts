// Running the PostgreSQL tools: as the postgres OS user when docsift runs as root (PostgreSQL
// refuses to run as root), else as the current user.
import { execFile } from 'node:child_process';
import { chmod, stat } from 'node:fs/promises';
import path from 'node:path';

export type Log = (msg: string) => void;

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], mustSucceed = false, cwd?: string): Promise<RunResult> {
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
export function pgRun(runner: Runner, cmd: string, args: string[], mustSucceed = false): Promise<RunResult> {
  return runner.asPostgres ? run('runuser', ['-u', 'postgres', '--', cmd, ...args], mustSucceed, '/') : run(cmd, args, mustSucceed, '/');
}

export interface Runner {
  asPostgres: boolean;
  uid: number;
  gid: number;
  groups: number[];
}

export async function makeRunner(log: Log): Promise<Runner> {
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
export async function makeTraversable(dir: string, runner: Runner, log: Log): Promise<void> {
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
