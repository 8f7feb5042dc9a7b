// Keyset cursors of the paginated lists: base64url of `<timestamp>|<id>` (documents, webhook
// deliveries) or of `["<timestamp>", <id>]` (the usage log). Decoding is strict, so a cursor the
// server did not produce is 400 VALIDATION_FAILED before any query: PostgreSQL refuses timestamps
// that JavaScript accepts (year 0, negative years, years after 9999), which was a 500. A cursor
// carries no authority (each list still filters by the caller), so strict decoding is enough and
// needs no secret shared between API replicas.
import { AppError } from './errors.js';

/** Exactly what Date#toISOString produces for years 0001–9999, which PostgreSQL timestamptz holds. */
const ISO_MS = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_LOWER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,400}$/;

export function invalidCursor(hint = 'Use the cursor from the previous page’s Link header.'): AppError {
  return new AppError('VALIDATION_FAILED', 'Invalid cursor.', { cursor: [hint] });
}

/** A timestamp as a cursor carries it: canonical ISO with milliseconds, years 1–9999, a real day. */
export function cursorDate(ts: unknown): Date | undefined {
  if (typeof ts !== 'string') return undefined;
  const m = ISO_MS.exec(ts);
  if (!m || Number(m[1]) < 1) return undefined;
  const d = new Date(ts);
  // 2026-02-30 parses (as March 2): only a timestamp that prints back the same is one a row had.
  return !Number.isNaN(d.getTime()) && d.toISOString() === ts ? d : undefined;
}

/** The cursor's text, when it is canonical base64url (no padding, nothing an encoder would not write). */
function cursorText(raw: string): string | undefined {
  if (!BASE64URL.test(raw)) return undefined;
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  return Buffer.from(text).toString('base64url') === raw ? text : undefined;
}

export function encodeDateIdCursor(at: Date, id: string): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

/** `<timestamp>|<uuid>` or 400. */
export function decodeDateIdCursor(raw: string): { createdAt: Date; id: string } {
  const parts = cursorText(raw)?.split('|');
  const createdAt = parts?.length === 2 ? cursorDate(parts[0]) : undefined;
  const id = parts?.[1];
  if (!createdAt || !id || !UUID_LOWER.test(id)) throw invalidCursor();
  return { createdAt, id };
}

export function encodeDateSerialCursor(ts: string, id: number): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}

/** `["<timestamp>", <positive bigint id>]` or 400. */
export function decodeDateSerialCursor(raw: string, hint: string): { ts: string; id: number } {
  const text = cursorText(raw);
  let v: unknown;
  try {
    v = text === undefined ? undefined : JSON.parse(text);
  } catch {
    v = undefined;
  }
  if (Array.isArray(v) && v.length === 2 && cursorDate(v[0]) && Number.isSafeInteger(v[1]) && (v[1] as number) > 0) {
    return { ts: v[0] as string, id: v[1] as number };
  }
  throw invalidCursor(hint);
}
