// A real pgbouncer (Debian package `pgbouncer`) in front of a test PostgreSQL, on a free loopback
// port, in transaction pooling mode by default. A missing binary is a failure with the install
// command, never a skipped test: the README's prerequisites and scripts/install-test-deps.sh list it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { chown, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort } from './private-pg.js';

export interface Pgbouncer {
  readonly port: number;
  /** `target`'s URL with pgbouncer's host and port (same user, password and database). */
  url(target: string): string;
  /** Every line pgbouncer logged. */
  readonly log: string[];
  /** Transactions pgbouncer has passed to `database` so far (SHOW STATS). */
  transactions(database: string): Promise<number>;
  stop(): Promise<void>;
  /** Starts again on the same port. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const SEARCH_PATH = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/opt/homebrew/bin'];

/** The pgbouncer binary in `dirs` (default: PATH and the usual sbin directories); throws how to install it. */
export function findPgbouncer(dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...SEARCH_PATH].filter(Boolean)): string {
  for (const dir of dirs) {
    const file = path.join(dir, 'pgbouncer');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  throw new Error(
    'pgbouncer is not installed, and the pgbouncer tests need it. Install it with `apt-get install -y pgbouncer` ' +
      '(or `bash scripts/install-test-deps.sh`, which the README lists under prerequisites).',
  );
}

/**
 * Starts pgbouncer in front of the server of `serverUrl` (a URL with user and password). Every
 * database name is forwarded; clients authenticate with that same user and password (SCRAM).
 */
export async function startPgbouncer(
  serverUrl: string,
  opts: { poolMode?: 'transaction' | 'session'; poolSize?: number } = {},
): Promise<Pgbouncer> {
  const bin = findPgbouncer();
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-pgbouncer-'));
  const asRoot = process.getuid?.() === 0;
  let port = await freePort();
  // pgbouncer refuses to run as root: it runs as the user that owns the PostgreSQL cluster.
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    await chown(dir, id('-u'), id('-g'));
  }
  const write = async () => {
    await writeFile(path.join(dir, 'users.txt'), `"${user.replace(/"/g, '""')}" "${password.replace(/"/g, '""')}"\n`, { mode: 0o600 });
    await writeFile(
      path.join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = scram-sha-256',
        `auth_file = ${path.join(dir, 'users.txt')}`,
        `pool_mode = ${opts.poolMode ?? 'transaction'}`,
        `default_pool_size = ${opts.poolSize ?? 10}`,
        'max_client_conn = 500',
        // The admin console (database "pgbouncer") lets tests read SHOW STATS.
        `admin_users = ${user}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    if (asRoot) {
      const { uid, gid } = await stat(dir);
      for (const f of ['users.txt', 'pgbouncer.ini']) await chown(path.join(dir, f), uid, gid);
    }
  };
  const log: string[] = [];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async () => {
    for (let attempt = 0; ; attempt++) {
      await write();
      const ini = path.join(dir, 'pgbouncer.ini');
      const c = asRoot
        ? spawn('runuser', ['-u', 'postgres', '--', bin, ini], { stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(bin, [ini], { stdio: ['ignore', 'pipe', 'pipe'] });
      let ended = false;
      exited = new Promise((resolve) =>
        c.once('exit', () => {
          ended = true;
          resolve();
        }),
      );
      for (const s of [c.stdout!, c.stderr!]) {
        s.setEncoding('utf8');
        s.on('data', (d: string) => log.push(...d.split('\n').filter(Boolean)));
      }
      child = c;
      const deadline = Date.now() + 10_000;
      while (!ended && Date.now() < deadline && !(await accepts(port))) await new Promise((r) => setTimeout(r, 25));
      if (!ended && (await accepts(port))) return;
      c.kill('SIGTERM');
      await exited;
      // Another process took the port between choosing and binding it: choose again.
      if (attempt < 3 && log.some((l) => /Address already in use|bind/.test(l))) {
        port = await freePort();
        continue;
      }
      throw new Error(`pgbouncer did not start:\n${log.slice(-10).join('\n')}`);
    }
  };
  await start();
  const stop = async () => {
    child?.kill('SIGTERM');
    await exited;
    child = undefined;
  };
  return {
    get port() {
      return port;
    },
    url(target: string) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log,
    async transactions(database: string) {
      const u = new URL(serverUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      u.pathname = '/pgbouncer';
      // The console speaks only the simple query protocol.
      const admin = postgres(u.toString(), { max: 1, prepare: false, fetch_types: false, onnotice: () => {} });
      try {
        const rows = await admin.unsafe('SHOW STATS').simple();
        const row = (rows as unknown as { database: string; total_xact_count: string | number }[]).find((r) => r.database === database);
        return Number(row?.total_xact_count ?? 0);
      } finally {
        await admin.end();
      }
    },
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
