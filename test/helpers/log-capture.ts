// Collects a daemon's pino JSON lines in memory (startTestDaemon's `logTo`), for assertions on what
// was logged and for waiting on a log line as an observable event.
import { Writable } from 'node:stream';

export interface CapturedLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

export interface LogCapture {
  stream: Writable;
  lines: CapturedLine[];
  /** Resolves with the first line (past or future) that matches. */
  waitFor(match: (l: CapturedLine) => boolean, timeoutMs: number, what: string): Promise<CapturedLine>;
}

export const WARN = 40;

export function captureLogs(): LogCapture {
  const lines: CapturedLine[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const parts = (buf + chunk.toString('utf8')).split('\n');
      buf = parts.pop() ?? '';
      for (const p of parts) {
        try {
          lines.push(JSON.parse(p) as CapturedLine);
        } catch {
          /* not a JSON line */
        }
      }
      for (const w of waiters) w();
      cb();
    },
  });
  return {
    stream,
    lines,
    waitFor: (match, timeoutMs, what) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const l = lines.find(match);
          if (!l) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(l);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}
