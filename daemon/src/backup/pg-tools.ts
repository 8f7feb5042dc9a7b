// pg_dump and pg_restore: the newest installed (Debian keeps each major under
// /usr/lib/postgresql/NN/bin; pg_dump must be at least the server's major), run with the connection
// URL's password in PGPASSWORD so it never shows in the process list.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function onPath(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, tool);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** The newest `tool` of a major at least `minMajor`: Debian's per-version directories first, then PATH. */
export function findPgTool(tool: 'pg_dump' | 'pg_restore', minMajor: number): string {
  const root = '/usr/lib/postgresql';
  let majors: number[] = [];
  try {
    majors = fs
      .readdirSync(root)
      .map(Number)
      .filter((v) => v >= minMajor)
      .sort((a, b) => b - a);
  } catch {
    /* not a Debian layout */
  }
  for (const v of majors) {
    const file = path.join(root, String(v), 'bin', tool);
    if (fs.existsSync(file)) return file;
  }
  const found = onPath(tool);
  if (found) return found;
  throw new Error(
    `${tool} ${minMajor} or newer is not installed; it comes with PostgreSQL's client package (Debian: apt-get install postgresql-client-${minMajor}).`,
  );
}

/** `--dbname` without the password, and the environment carrying it. */
export function connectionFor(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const u = new URL(databaseUrl);
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { dbname: u.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } };
}

export interface ToolRun {
  child: ChildProcess;
  /** Resolves when the tool exits 0; rejects with its last stderr lines otherwise. */
  done: Promise<void>;
}

/** Starts a PostgreSQL client tool; stdout is left to the caller (a pipe), stderr is kept for the error. */
export function runPgTool(file: string, args: string[], env: NodeJS.ProcessEnv, stdout: 'pipe' | 'ignore' = 'ignore'): ToolRun {
  const child = spawn(file, args, { env, stdio: ['ignore', stdout, 'pipe'] });
  const tail: string[] = [];
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    tail.push(...d.split('\n').filter(Boolean));
    if (tail.length > 20) tail.splice(0, tail.length - 20);
  });
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(file)} failed (${signal ?? `exit ${code}`}): ${tail.join('\n') || 'no message'}`));
    });
  });
  return { child, done };
}
