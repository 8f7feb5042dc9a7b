// `docsift-daemon admin …` as a real child process: its exit code, stdout and stderr.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = any>(): T;
}

/** Runs `docsift-daemon admin <args>` with only `env` (plus PATH and HOME) as its environment. */
export function runAdminProcess(args: string[], env: Record<string, string>, timeoutMs = 300_000): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', 'admin', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`admin ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr,
        json() {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(`admin ${args.join(' ')} printed no JSON (exit ${code}):\n${stdout}\n${stderr}`);
          }
        },
      });
    });
  });
}
