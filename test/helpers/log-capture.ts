// Collects a daemon's pino JSON lines in memory (startTestDaemon's `logTo`), for assertions on what
// was logged and for waiting on a log line as an observable event.
import { Writable } from 'node:stream';
import { arrivals } from './arrivals.js';

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
  const arrived = arrivals();
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
      arrived.notify();
      cb();
    },
  });
  return {
    stream,
    lines,
    waitFor: (match, timeoutMs, what) => arrived.waitFor(() => lines.find(match), timeoutMs, what),
  };
}
