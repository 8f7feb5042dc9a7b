// Document metadata, in one place below its users: the limits and the key rule (documents/ checks
// writes by them, filters/ names keys by them), the text PostgreSQL can store, the check every write
// passes, and the OpenAPI schema (routes/). A flat JSON object whose values are strings, numbers,
// booleans or arrays of strings: at most 64 keys; a key is 1–64 characters of letters, digits, `_`,
// `-` and `.` starting with a letter or `_`; a string at most 1,000 characters; an array at most 100
// strings; no nested objects (depth 2: object → array); at most 8 KiB as JSON (README "Filtering").
import { z } from '@hono/zod-openapi';
import { AppError } from './errors.js';

export const METADATA_LIMITS = { keys: 64, keyLength: 64, stringLength: 1000, arrayLength: 100, bytes: 8192 } as const;
export const METADATA_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
export const METADATA_KEY_RULE = `Keys are 1–${METADATA_LIMITS.keyLength} letters, digits, "_", "-" or ".", starting with a letter or "_".`;

export type MetadataValue = string | number | boolean | string[];
export type Metadata = Record<string, MetadataValue>;

/** In a `u` regex a surrogate pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Why PostgreSQL cannot store `s` as text or inside jsonb, or undefined when it can: NUL (no text
 * holds it) and a lone UTF-16 surrogate (jsonb refuses its `\ud800` escape; it is no character of
 * any encoding). Metadata values and every string of a filter pass this check.
 */
export function unstorableText(s: string): string | undefined {
  if (s.includes('\u0000')) return 'Must not contain NUL characters.';
  if (LONE_SURROGATE.test(s)) return 'Must not contain a lone UTF-16 surrogate (\\ud800–\\udfff without its pair).';
  return undefined;
}

const bad = (field: string, message: string): AppError =>
  new AppError('VALIDATION_FAILED', `Invalid metadata: ${message}`, { [field]: [message] });

function checkString(s: string, field: string): void {
  if (s.length > METADATA_LIMITS.stringLength) throw bad(field, `Strings are at most ${METADATA_LIMITS.stringLength} characters.`);
  const problem = unstorableText(s);
  if (problem) throw bad(field, problem);
}

/** Checks a metadata object (already parsed JSON); `field` names it in the error (`metadata`). */
export function validateMetadata(raw: unknown, field = 'metadata'): Metadata {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad(field, 'Must be a JSON object.');
  const entries = Object.entries(raw);
  if (entries.length > METADATA_LIMITS.keys) throw bad(field, `At most ${METADATA_LIMITS.keys} keys.`);
  for (const [key, value] of entries) {
    const at = `${field}.${key}`;
    if (key.length > METADATA_LIMITS.keyLength || !METADATA_KEY.test(key)) throw bad(at, METADATA_KEY_RULE);
    if (typeof value === 'string') checkString(value, at);
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw bad(at, 'Numbers must be finite.');
    } else if (typeof value === 'boolean') continue;
    else if (Array.isArray(value)) {
      if (value.length > METADATA_LIMITS.arrayLength) throw bad(at, `Arrays hold at most ${METADATA_LIMITS.arrayLength} strings.`);
      for (const [i, v] of value.entries()) {
        if (typeof v !== 'string') throw bad(`${at}[${i}]`, 'Arrays hold strings only.');
        checkString(v, `${at}[${i}]`);
      }
    } else throw bad(at, 'Values are strings, numbers, booleans or arrays of strings (no nested objects or null).');
  }
  if (Buffer.byteLength(JSON.stringify(raw)) > METADATA_LIMITS.bytes) throw bad(field, `At most ${METADATA_LIMITS.bytes} bytes as JSON.`);
  return raw as Metadata;
}

/** A form field holding JSON (multipart upload and replace); undefined when the field is absent. */
export function parseMetadataField(raw: unknown, field = 'metadata'): Metadata | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') return validateMetadata(raw, field);
  if (!raw.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw bad(field, 'Must be a JSON object.');
  }
  return validateMetadata(parsed, field);
}

const L = METADATA_LIMITS;
/** The OpenAPI schema `DocumentMetadata` (writes are checked by validateMetadata, which names the bad key). */
export const DocumentMetadata = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
  .openapi('DocumentMetadata', {
    description: `Structured fields of a document, filterable in search and listing (\`filter\`). A flat JSON object: values are strings, numbers, booleans or arrays of strings (no nested objects, no null). Limits: at most ${L.keys} keys; a key is 1–${L.keyLength} letters, digits, \`_\`, \`-\` or \`.\`, starting with a letter or \`_\`; strings at most ${L.stringLength} characters (no NUL, no lone surrogate); arrays at most ${L.arrayLength} strings; at most ${L.bytes} bytes as JSON. A violation answers 400 VALIDATION_FAILED naming the key (\`metadata.year\`).`,
    example: { year: 2024, dept: 'legal', confidential: false, parties: ['acme', 'globex'] },
  });
