// Retry policy, kept free of I/O so it can be tested on its own.
//
// - Idempotent calls (GET, PATCH, DELETE, and read-only or upserting POSTs such as search, subscribe,
//   grant and webhook set) are retried on 429, 500, 502, 503, 504, timeouts and connection errors.
// - Non-idempotent calls (creating a collection or key, uploads, replace, reprocess, rotate, webhook
//   test, redeliver) are retried only when the server certainly did nothing: the connection was
//   refused or the name did not resolve (the request never left), a 429 (rate limiting happens
//   before any handler runs), or a 503 or a 500 UPLOAD_FAILED carrying Retry-After (the server says
//   it did not process it: its database or its blob store was down, nothing was stored).
// - A Retry-After longer than `maxRetryAfterMs` is not waited out: the RateLimitError is thrown with
//   `retryAfter` so the caller can decide (a per-day window can be hours away).
import { ApiError, ConnectionError, TimeoutError } from './errors.js';

export interface RetryConfig {
  maxRetries: number;
  /** First backoff step; doubles per attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After the client sleeps through. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryConfig = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** Whether a failed attempt may be repeated. */
export function shouldRetry(err: unknown, idempotent: boolean): boolean {
  if (err instanceof ApiError) {
    if (!RETRYABLE_STATUS.has(err.status)) return false;
    if (idempotent) return true;
    const nothingDone = err.status === 503 || (err.status === 500 && err.code === 'UPLOAD_FAILED');
    return err.status === 429 || (nothingDone && err.retryAfter !== undefined);
  }
  if (err instanceof TimeoutError) return idempotent;
  if (err instanceof ConnectionError) return idempotent || err.beforeSend;
  return false;
}

/**
 * Delay before retry number `attempt` (0-based). Exponential with "equal jitter" (half fixed, half
 * random) so that many clients hitting the same outage spread out; a server-given Retry-After wins,
 * with up to 10 % added so clients released together do not all return in the same instant.
 */
export function retryDelayMs(attempt: number, cfg: RetryConfig, retryAfterSeconds?: number, random: () => number = Math.random): number {
  if (retryAfterSeconds !== undefined) {
    const ms = retryAfterSeconds * 1000;
    return Math.round(ms + ms * 0.1 * random());
  }
  const exp = Math.min(cfg.maxDelayMs, cfg.baseDelayMs * 2 ** attempt);
  return Math.round(exp / 2 + (exp / 2) * random());
}

const BEFORE_SEND_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

function errorCodes(err: unknown, depth = 0): string[] {
  if (!err || typeof err !== 'object' || depth > 4) return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((x) => errorCodes(x, depth + 1)) : [];
  return [...own, ...nested, ...errorCodes(e.cause, depth + 1)];
}

/** What each code means, said once in the message so nobody has to look it up. */
const CODE_MEANING: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there; is the server running?',
  ENOTFOUND: 'no such host name',
  EAI_AGAIN: 'the host name could not be looked up right now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'no answer to the connection attempt',
  ECONNRESET: 'the server closed the connection before answering',
  EPIPE: 'the server closed the connection while the request was sent',
  UND_ERR_SOCKET: 'the server closed the connection before answering',
  ETIMEDOUT: 'the connection timed out',
};

/** The innermost message of a cause chain ("bad port", "getaddrinfo ENOTFOUND x"), past the generic "fetch failed". */
function innermostMessage(err: unknown): string | undefined {
  let e = err;
  let message: string | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++, e = (e as { cause?: unknown }).cause)
    if (e instanceof Error && e.message) message = e.message;
  return message;
}

/**
 * Wraps a fetch rejection, whose own message is only "fetch failed" (Node) or "Failed to fetch"
 * (browsers): the address, the code and its meaning. Browsers give a bare TypeError, so there
 * `beforeSend` stays false (the safe answer).
 */
export function connectionErrorFrom(err: unknown, url: string): ConnectionError {
  const codes = errorCodes(err);
  const beforeSend = codes.length > 0 && codes.every((c) => BEFORE_SEND_CODES.has(c));
  const code = codes[0];
  const origin = new URL(url).origin;
  const detail = code ? `${code} (${CODE_MEANING[code] ?? innermostMessage(err) ?? 'no answer'})` : (innermostMessage(err) ?? String(err));
  const lost = code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
  const message = `${beforeSend ? 'Could not connect to' : lost ? 'Lost the connection to' : 'Could not reach'} ${origin}: ${detail}`;
  return new ConnectionError(message, { cause: err, beforeSend, code });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
