// A real streaming replica of a private test cluster (test/helpers/private-pg.ts): `pg_basebackup -R`
// into a directory beside it and a second postmaster on a free loopback port, in hot standby. Tests
// pause and resume WAL replay to see which server answered a read, and wait for replay to catch up.
import { execFile } from 'node:child_process';
import { appendFile, chmod, chown, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { findPgBinDir } from '../../daemon/src/local-pg/binaries.js';
import { freePort, pgCtl, type PrivatePostgres } from './private-pg.js';

export interface StreamingReplica {
  url: string;
  port: number;
  dataDir: string;
  /** Stops WAL replay: the replica keeps answering, with the data it had. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary had written when this was called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

function run(file: string, args: string[]): Promise<void> {
  // PostgreSQL tools refuse to run as root; the cluster belongs to the postgres user then.
  const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { cwd: '/' }, (err, _stdout, stderr) =>
      err ? reject(new Error(`${path.basename(file)} failed: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}

export async function startReplica(primary: PrivatePostgres): Promise<StreamingReplica> {
  const binDir = findPgBinDir();
  if (!binDir) throw new Error('no PostgreSQL server binaries found');
  const dataDir = path.join(path.dirname(primary.dataDir), 'replica');
  const owner = await stat(primary.dataDir);
  await mkdir(dataDir, { mode: 0o700 });
  await chown(dataDir, owner.uid, owner.gid);
  await chmod(dataDir, 0o700);
  // -R writes standby.signal and primary_conninfo; -X stream copies the WAL made during the copy.
  await run(path.join(binDir, 'pg_basebackup'), ['-d', primary.url, '-D', dataDir, '-R', '-X', 'stream', '--checkpoint=fast']);
  const port = await freePort();
  // postgresql.auto.conf is read last: it overrides the port and socket directory copied from the primary.
  await appendFile(path.join(dataDir, 'postgresql.auto.conf'), `port = ${port}\nunix_socket_directories = ''\nhot_standby = on\n`);
  const logFile = path.join(dataDir, 'startup.log');
  const start = () => pgCtl(binDir, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60']);
  await start();
  const u = new URL(primary.url);
  u.port = String(port);
  const url = u.toString();
  const admin = (target: string) => postgres(target, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  const once = async <T>(target: string, f: (sql: postgres.Sql) => Promise<T>): Promise<T> => {
    const sql = admin(target);
    try {
      return await f(sql);
    } finally {
      await sql.end();
    }
  };
  return {
    url,
    port,
    dataDir,
    pauseReplay: () => once(url, async (sql) => void (await sql`select pg_wal_replay_pause()`)),
    resumeReplay: () => once(url, async (sql) => void (await sql`select pg_wal_replay_resume()`)),
    async caughtUp(timeoutMs = 30_000) {
      const lsn = (await once(primary.url, (sql) => sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`))[0]!.lsn;
      const deadline = Date.now() + timeoutMs;
      const sql = admin(url);
      try {
        for (;;) {
          const [r] = await sql<{ done: boolean }[]>`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`;
          if (r?.done) return;
          if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await sql.end();
      }
    },
    stop: () => pgCtl(binDir, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60']),
    start,
    async destroy() {
      await pgCtl(binDir, ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', '60']).catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
