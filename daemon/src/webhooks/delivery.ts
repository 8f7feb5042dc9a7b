import { createHmac } from 'node:crypto';
import type { Tx } from '../db/client.js';
import { FetchTimeoutError, FetchTooLargeError, safeFetch } from '../net/safe-fetch.js';
import { parseRetryAfter } from '../net/retry-after.js';
import { UnsafeUrlError } from '../net/ssrf.js';
import type { AppDeps } from '../types.js';

export const WEBHOOK_USER_AGENT = 'docsift-webhooks/1';
/** Retries after the first attempt (so at most MAX_RETRIES + 1 attempts per event). */
export const MAX_RETRIES = 5;
/** Retry-After values above this are clamped, so one receiver cannot park a job for days. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
const JITTER = 0.2;
const RESPONSE_CAP_BYTES = 1024 * 1024;
const ERROR_EXCERPT_CHARS = 200;

export type DeliveryTrigger = 'automatic' | 'manual' | 'test';

export interface StoredEvent {
  id: string;
  organization_id: string;
  type: string;
  payload: { event: string; timestamp: string; data: unknown };
}

export interface AttemptResult {
  ok: boolean;
  /** Whether the failure may succeed later (5xx, 408, 429, timeouts, connection errors). */
  retryable: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Parsed Retry-After of a 429, in ms. */
  retryAfterMs: number | null;
}

/** The exact bytes sent: the stored payload with the event id first, identical on every attempt. */
export function eventBody(e: StoredEvent): string {
  return JSON.stringify({ id: e.id, event: e.payload.event, timestamp: e.payload.timestamp, data: e.payload.data });
}

/** `sha256=` + lowercase hex HMAC-SHA256(secret, "{timestamp}.{raw body}"), as receivers recompute it. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/**
 * Delay before retry number `retry` (1-based): base · 2^(retry-1), ±20 % jitter so a receiver that
 * comes back is not hit by every queued event at the same instant. A 429's Retry-After is honoured
 * when it asks for longer.
 */
export function retryDelayMs(retry: number, baseMs: number, retryAfterMs: number | null = null, random = Math.random): number {
  const backoff = baseMs * 2 ** (retry - 1) * (1 - JITTER + 2 * JITTER * random());
  const wanted = retryAfterMs === null ? 0 : Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  return Math.round(Math.max(backoff, wanted));
}

function describeError(err: unknown, timeoutMs: number): { message: string; retryable: boolean } {
  const e = err as Error & { code?: string };
  if (e instanceof UnsafeUrlError || e?.code === 'EUNSAFEADDR') return { message: `URL refused: ${e.message}`, retryable: false };
  if (e instanceof FetchTimeoutError) return { message: `Timed out: no response within ${timeoutMs} ms.`, retryable: true };
  if (e instanceof FetchTooLargeError) return { message: `Response body larger than ${RESPONSE_CAP_BYTES} bytes.`, retryable: false };
  if (e?.code === 'ECONNREFUSED') return { message: 'Connection refused.', retryable: true };
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return { message: `Host not found (${e.code}).`, retryable: true };
  return { message: `Connection error: ${e?.code ? `${e.code} ` : ''}${e?.message ?? String(err)}`.trim(), retryable: true };
}

/**
 * One signed POST to the webhook. Never throws: every outcome becomes an AttemptResult. The
 * timestamp and signature are computed here, so every attempt carries fresh ones. The URL is
 * re-validated and its DNS answer checked at connect time (DNS rebinding) unless private targets
 * are allowed by configuration. Redirects are not followed.
 */
export async function sendEvent(
  deps: AppDeps,
  target: { url: string; secret: string },
  event: StoredEvent,
  attempt: number,
): Promise<AttemptResult> {
  const body = eventBody(event);
  const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signPayload(target.secret, timestamp, body),
    'x-service-event-id': event.id,
    'x-service-event': event.type,
    'x-service-attempt': String(attempt),
  };
  const timeoutMs = deps.config.WEBHOOK_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await safeFetch(target.url, {
      method: 'POST',
      headers,
      body,
      allowPrivate: deps.config.ALLOW_PRIVATE_URLS,
      timeoutMs,
      maxBytes: RESPONSE_CAP_BYTES,
      maxRedirects: 0,
    });
    const durationMs = elapsed();
    const s = res.status;
    if (s >= 200 && s < 300) return { ok: true, retryable: false, statusCode: s, durationMs, error: null, retryAfterMs: null };
    const excerpt = res.body
      .toString('utf8', 0, Math.min(res.body.length, ERROR_EXCERPT_CHARS * 4))
      .slice(0, ERROR_EXCERPT_CHARS)
      .trim();
    return {
      ok: false,
      retryable: s >= 500 || s === 408 || s === 429,
      statusCode: s,
      durationMs,
      error: `Receiver answered HTTP ${s}${excerpt ? `: ${excerpt}` : ''}`,
      retryAfterMs: s === 429 ? parseRetryAfter(res.headers['retry-after'], Date.now()) : null,
    };
  } catch (err) {
    const d = describeError(err, timeoutMs);
    return { ok: false, retryable: d.retryable, statusCode: null, durationMs: elapsed(), error: d.message, retryAfterMs: null };
  }
}

export interface DeliveryRecord {
  organizationId: string;
  webhookId: string;
  event: StoredEvent;
  attempt: number;
  trigger: DeliveryTrigger;
  url: string;
  result: AttemptResult;
  nextRetryAt: Date | null;
  now: Date;
}

export async function recordDelivery(tx: Tx, r: DeliveryRecord): Promise<string> {
  const rows = await tx<{ id: string }[]>`
    insert into webhook_deliveries (organization_id, webhook_id, event_id, event_type, attempt, trigger, url, status_code, success, duration_ms, error, next_retry_at, created_at)
    values (${r.organizationId}, ${r.webhookId}, ${r.event.id}, ${r.event.type}, ${r.attempt}, ${r.trigger}, ${r.url}, ${r.result.statusCode},
            ${r.result.ok}, ${r.result.durationMs}, ${r.result.error}, ${r.nextRetryAt}, ${r.now})
    returning id`;
  return rows[0]!.id;
}

export async function getEvent(tx: Tx, organizationId: string, eventId: string): Promise<StoredEvent | undefined> {
  const rows = await tx<
    StoredEvent[]
  >`select id, organization_id, type, payload from events where id = ${eventId} and organization_id = ${organizationId}`;
  return rows[0];
}
