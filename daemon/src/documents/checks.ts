// What an upload must satisfy before anything is written: metadata limits, no NUL characters, and a
// file whose type is supported and whose content matches it. Upload, JSON documents and replace.
import { AppError } from '../errors.js';
import { checkMagic, detectSourceType } from '../ingest/file-types.js';
import { parseTags } from './tags.js';
import type { ReceivedFile } from './multipart.js';
import { parseMetadataField, type Metadata } from './metadata.js';

const MAX_TAGS = 50;
const MAX_TAG_LENGTH = 100;
const MAX_TITLE = 500;

export interface Meta {
  title?: string;
  tags: string[];
  sourceTypeOverride?: string;
  /** Undefined when not sent (replace keeps the current metadata). */
  metadata?: Metadata;
}

/** The metadata of a new document, from a form (multipart, web UI) or a JSON body. */
export interface DocumentInput {
  source_type?: string;
  title?: string;
  /** A list, or one comma-separated string (forms). */
  tags?: string | string[];
  content?: string;
  url?: string;
  /** An object (JSON body) or its JSON text (forms); checked by validateMetadata. */
  metadata?: unknown;
}

/** PostgreSQL text cannot hold NUL: a 400 here, rather than a failed insert. */
export function rejectNul(fields: [name: string, value: string | string[] | undefined][]): void {
  for (const [name, value] of fields) {
    if ((Array.isArray(value) ? value.join(',') : (value ?? '')).includes('\u0000'))
      throw new AppError('VALIDATION_FAILED', `Field "${name}" must not contain NUL characters.`, { [name]: ['NUL character.'] });
  }
}

export function validateMeta(input: DocumentInput): Meta {
  // A list element holding commas is several tags, as in the comma-separated form field.
  const tags = parseTags(Array.isArray(input.tags) ? input.tags.join(',') : input.tags);
  if (tags.length > MAX_TAGS) throw new AppError('VALIDATION_FAILED', `At most ${MAX_TAGS} tags.`, { tags: [`At most ${MAX_TAGS} tags.`] });
  if (tags.some((t) => t.length > MAX_TAG_LENGTH))
    throw new AppError('VALIDATION_FAILED', `Tags must be at most ${MAX_TAG_LENGTH} characters.`, { tags: ['Tag too long.'] });
  const title = input.title?.trim();
  if (title && title.length > MAX_TITLE)
    throw new AppError('VALIDATION_FAILED', `Title must be at most ${MAX_TITLE} characters.`, { title: ['Too long.'] });
  const metadata = parseMetadataField(input.metadata);
  return { title: title || undefined, tags, sourceTypeOverride: input.source_type?.trim().toLowerCase() || undefined, metadata };
}

/** Multipart text fields: the known ones are metadata; every field, known or not, must be free of NUL. */
export function readMeta(fields: Record<string, string>): Meta {
  rejectNul(Object.entries(fields));
  return validateMeta(fields);
}

/** The codes of a file a batch skips: each is the code a single upload of that file is refused with. */
export const SKIP_CODES = ['FILE_TOO_LARGE', 'UNSUPPORTED_FILE_TYPE', 'INVALID_FILE_CONTENT'] as const;
export type SkipCode = (typeof SKIP_CODES)[number];
/** A file a batch upload skipped; the rest of the batch is stored. */
export type SkippedFile = { filename: string; reason: string; code: SkipCode };

/** Why a received file cannot become a document, or its source type (upload and replace). */
export function classify(
  f: ReceivedFile,
  override?: string,
): { sourceType: string } | { code: SkipCode | 'UPLOAD_FAILED'; reason: string } {
  if (f.tooLarge) return { code: 'FILE_TOO_LARGE', reason: 'File exceeds the 50 MiB limit.' };
  if (f.failed) return { code: 'UPLOAD_FAILED', reason: 'The file could not be written to storage.' };
  const sourceType = detectSourceType(f.filename, f.mediaType, override);
  if (!sourceType || sourceType === 'text' || sourceType === 'url') {
    return { code: 'UNSUPPORTED_FILE_TYPE', reason: `Unsupported file type for "${f.filename}" (${f.mediaType}).` };
  }
  if (!checkMagic(sourceType, f.head))
    return { code: 'INVALID_FILE_CONTENT', reason: `The content of "${f.filename}" does not match its type (${sourceType}).` };
  return { sourceType };
}
