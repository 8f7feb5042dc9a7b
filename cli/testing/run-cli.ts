// Runs the real `docsift` binary as a child process, for the end-to-end tests in test/cli.*.test.ts:
// the shipped layout (bin/docsift.mjs beside dist/main.js) built by the same bundler as
// `npm run build`, from the current sources (once per content hash, into node_modules/.cache), so a
// test never runs a stale dist/.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.join(cliRoot, 'bin/docsift.mjs');

function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) hashTree(hash, full);
    else if (!e.name.endsWith('.test.ts')) hash.update(full).update(readFileSync(full));
  }
}

let entry: Promise<string> | undefined;
/** bin/docsift.mjs of a build of the current sources; concurrent test files share it (atomic rename). */
export function cliEntry(): Promise<string> {
  entry ??= (async () => {
    const hash = createHash('sha256');
    for (const dir of ['cli/bin', 'cli/src', 'cli/scripts', 'sdk/src']) hashTree(hash, path.resolve(cliRoot, '..', dir));
    const dir = path.join(cliRoot, 'node_modules/.cache/docsift-cli', hash.digest('hex').slice(0, 16));
    const bin = path.join(dir, 'bin/docsift.mjs');
    if (existsSync(bin)) return bin;
    const tmp = `${dir}.${process.pid}.tmp`;
    const { bundleCli } = await import('../scripts/bundle.mjs');
    await bundleCli({ outdir: path.join(tmp, 'dist') });
    mkdirSync(path.join(tmp, 'bin'), { recursive: true });
    copyFileSync(BIN, path.join(tmp, 'bin/docsift.mjs'));
    await rename(tmp, dir).catch(async (err) => {
      // Another process won the race with identical output.
      if (!existsSync(bin)) throw err;
      await rm(tmp, { recursive: true, force: true });
    });
    // Bundles of older sources are dead weight once a day has passed.
    const cache = path.dirname(dir);
    for (const old of readdirSync(cache)) {
      const full = path.join(cache, old);
      if (full !== dir && Date.now() - statSync(full).mtimeMs > 86_400_000) await rm(full, { recursive: true, force: true });
    }
    return bin;
  })();
  return entry;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws with the output when it is not). */
  json<T = any>(): T;
}

export interface CliEnv {
  /** Isolated config dir (DOCSIFT_CONFIG_DIR). */
  configDir: string;
  env: Record<string, string>;
}

/** A clean environment: no inherited DOCSIFT_* variables, its own config dir, no colours. */
export async function cliEnv(extra: Record<string, string> = {}): Promise<CliEnv> {
  const configDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-cli-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    TMPDIR: os.tmpdir(),
    DOCSIFT_CONFIG_DIR: configDir,
    NO_COLOR: '1',
    ...extra,
  };
  return { configDir, env };
}

export async function runCli(
  args: string[],
  opts: {
    env: Record<string, string>;
    input?: string;
    cwd?: string;
    timeoutMs?: number;
    /** Close the read end of stdout before the CLI writes, as `| head -1` does once it has its line. */
    closeStdout?: boolean;
    /** Node options before the script, e.g. `--import` of a module that traces what gets loaded. */
    nodeArgs?: string[];
  },
): Promise<CliResult> {
  const script = await cliEntry();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), script, ...args], {
      env: opts.env,
      cwd: opts.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    if (opts.closeStdout) child.stdout.destroy();
    else child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
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
            throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
          }
        },
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Starts the CLI without waiting for it (for long-running commands such as `webhooks listen`). */
export async function spawnCli(args: string[], opts: { env: Record<string, string>; cwd?: string }) {
  const child = spawn(process.execPath, [await cliEntry(), ...args], {
    env: opts.env,
    cwd: opts.cwd ?? process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  const lines: string[] = [];
  let stderr = '';
  let buffer = '';
  const waiters: { test: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  child.stdout.on('data', (d: string) => {
    buffer += d;
    let i: number;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      lines.push(line);
      for (const w of [...waiters]) if (w.test(line)) waiters.splice(waiters.indexOf(w), 1) && w.resolve(line);
    }
  });
  child.stderr.on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    /** Resolves with the first stdout line (already seen or future) that passes `test`. */
    waitForLine(test: (l: string) => boolean, timeoutMs = 30_000): Promise<string> {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching line in ${timeoutMs} ms; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push({ test, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      });
    },
  };
}
