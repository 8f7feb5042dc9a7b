// Receiver-side webhook checks (docs/service-spec.md §6), on WebCrypto so the same code runs in Node 20+, browsers,
// Deno and edge runtimes. The signature is recomputed over the raw body bytes, never re-serialised JSON.
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';
/** The event's id, the same on every retry of one event: what a receiver drops repeats by. */
export const EVENT_ID_HEADER = 'x-service-event-id';

/**
 * Where `verifyWebhook` remembers the event ids it has accepted. A `Set<string>` will do in one
 * process; `SeenEvents` bounds it; a database table or Redis set (async methods) serves several.
 */
export interface WebhookDedupeStore {
  has(eventId: string): boolean | Promise<boolean>;
  add(eventId: string): unknown;
}

/**
 * The last `capacity` (default 10 000) event ids, oldest forgotten first. Deliveries are retried
 * for hours, so a receiver that restarts in between may still see a repeat: use a shared store
 * when that matters.
 */
export class SeenEvents implements WebhookDedupeStore {
  private readonly ids = new Set<string>();
  constructor(readonly capacity = 10_000) {}
  has(eventId: string): boolean {
    return this.ids.has(eventId);
  }
  add(eventId: string): this {
    this.ids.delete(eventId);
    this.ids.add(eventId);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value as string);
    return this;
  }
  /** Forget an id, e.g. when handling the event failed and its retry should be processed. */
  delete(eventId: string): boolean {
    return this.ids.delete(eventId);
  }
  get size(): number {
    return this.ids.size;
  }
}

/**
 * A webhook payload's `data.tags` is ONE comma-separated string (`"finance,2024"`), as the
 * specification requires for the event payload, while the REST API's documents carry `tags` as an
 * array of strings. This gives the array: `splitWebhookTags(event.data.tags)` → `['finance', '2024']`.
 */
export function splitWebhookTags(tags: string | null | undefined): string[] {
  return (tags ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The `whsec_…` secret; several during a rotation (any may match). */
  secret: string | string[];
  headers: HeaderSource;
  /** Exactly the bytes received. */
  rawBody: string | Uint8Array | ArrayBuffer;
  /** Maximum age (and future skew) of X-Service-Timestamp in seconds; default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** Current time in ms, for tests. */
  now?: number;
  /**
   * Drop repeats: deliveries are at least once (a receiver slower than the service's timeout that
   * still finishes gets the event again), so with a store given, an event whose id (the
   * X-Service-Event-Id header, else the payload's `id`) is already in it resolves to `null`:
   * answer it 2xx and do nothing. Accepted ids are added to the store. If handling an event then
   * fails, remove its id (`SeenEvents.delete`) before answering an error, so the retry is handled.
   */
  seen?: WebhookDedupeStore;
}

const encoder = new TextEncoder();

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v.join(',') : v;
}

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function toHex(buf: ArrayBuffer): string {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function hmacHex(secret: string, timestamp: string, body: Uint8Array): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  return toHex(await globalThis.crypto.subtle.sign('HMAC', key, message));
}

/** Compares in time independent of where the strings differ (lengths are public: always 64 hex digits). */
export function timingSafeEqualHex(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i % a.length) || 0) ^ (b.charCodeAt(i % b.length) || 0);
  return diff === 0;
}

/** Signature headers for a body, as the service sends them; for tests and local tooling. */
export async function signWebhook(opts: {
  secret: string;
  rawBody: string | Uint8Array | ArrayBuffer;
  timestamp?: number;
}): Promise<Record<string, string>> {
  const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  return { 'X-Service-Timestamp': ts, 'X-Service-Signature': `sha256=${await hmacHex(opts.secret, ts, bytesOf(opts.rawBody))}` };
}

/**
 * Verifies a delivery and returns its parsed event. Throws WebhookVerificationError (with `reason`)
 * when a header is missing or malformed, the timestamp is outside the tolerance, no signature
 * matches, or the verified body is not JSON. With `seen`, a repeat of an accepted event resolves
 * to `null` (answer it 2xx, do nothing).
 *
 * Note `event.data.tags` is a comma-separated string here, not an array (see `splitWebhookTags`).
 */
export async function verifyWebhook(opts: VerifyWebhookOptions & { seen: WebhookDedupeStore }): Promise<WebhookEvent | null>;
export async function verifyWebhook(opts: VerifyWebhookOptions & { seen?: undefined }): Promise<WebhookEvent>;
export async function verifyWebhook(opts: VerifyWebhookOptions): Promise<WebhookEvent | null>;
export async function verifyWebhook(opts: VerifyWebhookOptions): Promise<WebhookEvent | null> {
  const signatureHeader = header(opts.headers, SIGNATURE_HEADER);
  const timestamp = header(opts.headers, TIMESTAMP_HEADER)?.trim();
  if (!signatureHeader || !timestamp)
    throw new WebhookVerificationError('Missing X-Service-Signature or X-Service-Timestamp header.', 'missing_header');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('X-Service-Timestamp is not a unix timestamp.', 'malformed_header');
  const tolerance = opts.toleranceSeconds ?? 300;
  const ageSeconds = Math.floor((opts.now ?? Date.now()) / 1000) - Number(timestamp);
  if (Math.abs(ageSeconds) > tolerance) {
    throw new WebhookVerificationError(
      `X-Service-Timestamp is ${ageSeconds > 0 ? `${ageSeconds} s old` : `${-ageSeconds} s in the future`}; the tolerance is ${tolerance} s.`,
      'timestamp_out_of_range',
    );
  }
  const given = signatureHeader
    .split(/[,\s]+/)
    .map((s) => /^sha256=([0-9a-fA-F]{64})$/.exec(s.trim())?.[1]?.toLowerCase())
    .filter((s): s is string => !!s);
  if (!given.length)
    throw new WebhookVerificationError('X-Service-Signature is not of the form sha256=<64 hex digits>.', 'malformed_header');
  const body = bytesOf(opts.rawBody);
  const secrets = Array.isArray(opts.secret) ? opts.secret : [opts.secret];
  let ok = false;
  for (const secret of secrets) {
    const expected = await hmacHex(secret, timestamp, body);
    // Check every candidate rather than stopping early, so timing does not tell which one matched.
    for (const g of given) ok = timingSafeEqualHex(expected, g) || ok;
  }
  if (!ok)
    throw new WebhookVerificationError(
      'Signature mismatch: wrong secret, or the body was altered (verify the raw bytes, before JSON parsing).',
      'signature_mismatch',
    );
  let event: WebhookEvent;
  try {
    event = JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The signed body is not valid JSON.', 'invalid_payload');
  }
  if (!opts.seen) return event;
  const id = header(opts.headers, EVENT_ID_HEADER)?.trim() || event.id;
  if (!id) return event;
  if (await opts.seen.has(id)) return null;
  await opts.seen.add(id);
  return event;
}
