// Receiver-side webhook checks (docs/service-spec.md §6), on WebCrypto so the same code runs in Node 20+, browsers,
// Deno and edge runtimes. The signature is recomputed over the raw body bytes, never re-serialised JSON.
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';

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
 * matches, or the verified body is not JSON.
 */
export async function verifyWebhook(opts: VerifyWebhookOptions): Promise<WebhookEvent> {
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
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The signed body is not valid JSON.', 'invalid_payload');
  }
}
