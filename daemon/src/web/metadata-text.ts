// Metadata as the web UI's forms write it: one `key = value` per line, values typed as the CLI's
// --meta reads them (2024 a number, true/false booleans, 'quoted' or "quoted" text, ["a", "b"] a
// list, anything else text), or a whole JSON object. The checked object is the API's own
// (documents/metadata.ts): the same limits and the same error fields (`metadata.year`).
import { AppError } from '../errors.js';
import { validateMetadata, type Metadata, type MetadataValue } from '../documents/metadata.js';

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

const bad = (message: string) => new AppError('VALIDATION_FAILED', `Invalid metadata: ${message}`, { metadata: [message] });

function value(raw: string, line: number): MetadataValue {
  const v = raw.trim();
  if (NUMBER.test(v)) return Number(v);
  if (v === 'true' || v === 'false') return v === 'true';
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1);
  if (v.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(v);
    } catch {
      throw bad(`Line ${line}: a list is written ["a", "b"].`);
    }
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) throw bad(`Line ${line}: a list holds quoted text only.`);
    return list as string[];
  }
  return v;
}

/** The form's text as checked metadata; `{}` for an empty field. */
export function parseMetadataText(text: string): Metadata {
  const src = text.trim();
  if (!src) return {};
  if (src.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(src);
    } catch {
      throw bad('Not a JSON object: write one key = value per line, or valid JSON.');
    }
    return validateMetadata(parsed);
  }
  const out: Record<string, MetadataValue> = {};
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) throw bad(`Line ${i + 1}: write key = value (for example year = 2024).`);
    const key = line.slice(0, eq).trim();
    if (Object.hasOwn(out, key)) throw bad(`Line ${i + 1}: "${key}" is given twice.`);
    out[key] = value(line.slice(eq + 1), i + 1);
  }
  return validateMetadata(out);
}

/** One value as the form reads it back: text that would read as another type is quoted. */
export function formatMetadataValue(v: MetadataValue): string {
  if (Array.isArray(v)) return `[${v.map((x) => JSON.stringify(x)).join(', ')}]`;
  if (typeof v !== 'string') return String(v);
  let readsBack: MetadataValue | undefined;
  try {
    readsBack = value(v, 0);
  } catch {
    readsBack = undefined;
  }
  return v !== '' && !v.includes('\n') && readsBack === v ? v : JSON.stringify(v);
}

/** Metadata as the form's text, keys in name order; parseMetadataText reads it back unchanged. */
export function formatMetadataText(meta: Metadata): string {
  return Object.keys(meta)
    .sort()
    .map((k) => `${k} = ${formatMetadataValue(meta[k]!)}`)
    .join('\n');
}
