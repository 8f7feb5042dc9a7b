// The daemon as a real child process (`serve`, `serve --api-only`, `worker`), for faults that must
// be judged by whether the process survives. Its pino log lines are parsed and kept for assertions.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface LogLine {
  level: number;
  msg: string;
  /** ISO timestamp. */
  time: string;
  [k: string]: unknown;
}

export interface DaemonProcess {
  readonly child: ChildProcess;
  /** Base URL of the HTTP server (serve only). */
  readonly url: string;
  readonly pid: number;
  /** Parsed JSON log lines so far. */
  readonly logs: LogLine[];
  /** Every non-JSON output line (the start banner, a crash's stack trace). */
  readonly text: string[];
  /** Null while running; the exit code or signal once it has ended. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | null;
  /** Resolves with the first log line (from the start) that matches. */
  waitForLog(match: (l: LogLine) => boolean, timeoutMs: number, what: string): Promise<LogLine>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  kill9(): Promise<void>;
}

export async function spawnDaemon(args: string[], env: Record<string, string>, startTimeoutMs = 90_000): Promise<DaemonProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const text: string[] = [];
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  const waiters = new Set<() => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (buf + chunk).split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('{')) {
          try {
            logs.push(JSON.parse(line) as LogLine);
            continue;
          } catch {
            /* not a log line after all */
          }
        }
        if (line.trim()) text.push(line);
      }
      for (const w of waiters) w();
    });
  }
  const waitFor = <T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const v = probe();
        if (v !== undefined) done(() => resolve(v));
        else if (exit)
          done(() => reject(new Error(`daemon ${args.join(' ')} exited (${JSON.stringify(exit)}) before ${what}:\n${text.join('\n')}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))), timeoutMs);
      const done = (f: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        exitPromise.then(() => waiters.delete(check));
        f();
      };
      waiters.add(check);
      void exitPromise.then(check);
      check();
    });

  let url = '';
  if (args[0] === 'serve') {
    url = await waitFor(
      () => text.map((l) => /docsift is running at (\S+)/.exec(l)?.[1]).find(Boolean),
      startTimeoutMs,
      'the start banner',
    );
  } else {
    await waitFor(() => (logs.some((l) => l.msg === 'worker running') ? true : undefined), startTimeoutMs, 'the worker to start');
  }
  return {
    child,
    url,
    pid: child.pid!,
    logs,
    text,
    exited: () => exit,
    waitForLog: (match, timeoutMs, what) => waitFor(() => logs.find(match), timeoutMs, what),
    async stop() {
      if (!exit) child.kill('SIGTERM');
      await exitPromise;
    },
    async kill9() {
      if (!exit) child.kill('SIGKILL');
      await exitPromise;
    },
  };
}
