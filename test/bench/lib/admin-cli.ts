// `docsift-daemon admin …` as an operator runs it, from this checkout: for benchmarks that set up
// users and keys, or time admin commands.
import { spawn } from 'node:child_process';
import { repoRoot } from './env.js';

export interface AdminRun {
  code: number | null;
  /** The last JSON line of standard output (undefined: none). */
  result: any;
  ms: number;
  stderr: string;
}

/** `docsift-daemon admin <args> --json` with `env` over this process's environment. */
export async function runAdmin(env: Record<string, string>, args: string[]): Promise<AdminRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', 'admin', ...args, '--json'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = out
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  return { code, result: line ? JSON.parse(line) : undefined, ms: performance.now() - started, stderr: err };
}
