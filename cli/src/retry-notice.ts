// What the CLI says while the SDK waits before repeating a request: one line with the reason and
// the time left, e.g. "rate limited — resuming in 57 s (10 requests per minute on the free tier)".
import { ApiError, ConnectionError, type DocsiftError, TimeoutError } from '@docsift/sdk';

export interface RetryWait {
  /** Short and lower-case: "rate limited", "server unavailable", … */
  reason: string;
  /** What the server said about it, when it said something useful. */
  detail?: string;
  /** When the request is sent again (epoch ms). */
  untilMs: number;
}

export function retryWait(error: DocsiftError, delayMs: number, now = Date.now()): RetryWait {
  const untilMs = now + delayMs;
  if (error instanceof ApiError && error.status === 429) {
    const tier = /^Rate limit exceeded: (.+?)(?: \(shared|\. Retry|$)/.exec(error.message)?.[1];
    if (tier) return { reason: 'rate limited', detail: tier, untilMs };
    const quota = /^Plan quota used up: the (.+?) plan includes ([\d,]+) searches/.exec(error.message);
    if (quota) return { reason: 'search quota used up', detail: `${quota[1]} plan, ${quota[2]} searches per cycle`, untilMs };
    return { reason: 'rate limited', untilMs };
  }
  if (error instanceof ApiError && error.status === 503) {
    // The server's first sentence says what is down ("The database is unreachable"), which is what an operator needs.
    const said = /^[^.;]+/.exec(error.message)?.[0]?.trim();
    return { reason: 'server unavailable', ...(said ? { detail: said.charAt(0).toLowerCase() + said.slice(1) } : {}), untilMs };
  }
  if (error instanceof ApiError && error.code === 'UPLOAD_FAILED') return { reason: 'server could not store the upload', untilMs };
  if (error instanceof ApiError) return { reason: `server error ${error.status}`, untilMs };
  if (error instanceof TimeoutError) return { reason: 'request timed out', untilMs };
  if (error instanceof ConnectionError) return { reason: 'connection failed', untilMs };
  return { reason: 'request failed', untilMs };
}

export function formatRetryWait(w: RetryWait, now = Date.now()): string {
  const seconds = Math.max(0, Math.ceil((w.untilMs - now) / 1000));
  return `${w.reason} — resuming in ${seconds} s${w.detail ? ` (${w.detail})` : ''}`;
}

/** Two notices describe the same wait: same reason, resuming within a couple of seconds of each other. */
export function sameWait(a: RetryWait | undefined, b: RetryWait): boolean {
  return !!a && a.reason === b.reason && a.detail === b.detail && Math.abs(a.untilMs - b.untilMs) < 3000;
}
