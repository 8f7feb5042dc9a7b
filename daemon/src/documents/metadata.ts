// Document metadata: a flat JSON object whose values are strings, numbers, booleans or arrays of
// strings. Limits (README "Filtering"): at most 64 keys; a key is 1–64 characters of letters,
// digits, `_`, `-` and `.` starting with a letter or `_`; a string at most 1,000 characters; an
// array at most 100 strings; no nested objects (depth 2: object → array); at most 8 KB as JSON.
import { AppError } from '../errors.js';
import { METADATA_KEY, METADATA_LIMITS } from '../filters/parse.js';

export type MetadataValue = string | number | boolean | string[];
export type Metadata = Record<string, MetadataValue>;

const bad = (field: string, message: string): AppError =>
  new AppError('VALIDATION_FAILED', `Invalid metadata: ${message}`, { [field]: [message] });

function checkString(s: string, field: string): void {
  if (s.length > METADATA_LIMITS.stringLength) throw bad(field, `Strings are at most ${METADATA_LIMITS.stringLength} characters.`);
  if (s.includes('\u0000')) throw bad(field, 'Must not contain NUL characters.');
}

/** Checks a metadata object (already parsed JSON); `field` names it in the error (`metadata`). */
export function validateMetadata(raw: unknown, field = 'metadata'): Metadata {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad(field, 'Must be a JSON object.');
  const entries = Object.entries(raw);
  if (entries.length > METADATA_LIMITS.keys) throw bad(field, `At most ${METADATA_LIMITS.keys} keys.`);
  for (const [key, value] of entries) {
    const at = `${field}.${key}`;
    if (key.length > METADATA_LIMITS.keyLength || !METADATA_KEY.test(key))
      throw bad(at, `Keys are 1–${METADATA_LIMITS.keyLength} letters, digits, "_", "-" or ".", starting with a letter or "_".`);
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
