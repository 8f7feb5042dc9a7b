// Which uploads docsift accepts, and a cheap magic-byte check that the bytes match the claim.
// Detection trusts the file extension first (docs/service-spec.md §4 says the type is "detected from the
// extension"), because browsers and curl send unreliable media types for .md/.csv/.json.

export type MagicKind = 'pdf' | 'zip' | 'rtf' | 'text';

export interface FileTypeInfo {
  extensions: string[];
  mediaTypes: string[];
  magic: MagicKind;
  /** for zip containers that announce themselves with a stored "mimetype" first entry */
  zipMimetype?: string;
}

export const SUPPORTED_TYPES = {
  pdf: { extensions: ['pdf'], mediaTypes: ['application/pdf', 'application/x-pdf'], magic: 'pdf' },
  docx: {
    extensions: ['docx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    magic: 'zip',
  },
  pptx: {
    extensions: ['pptx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    magic: 'zip',
  },
  xlsx: {
    extensions: ['xlsx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    magic: 'zip',
  },
  odt: {
    extensions: ['odt'],
    mediaTypes: ['application/vnd.oasis.opendocument.text'],
    magic: 'zip',
    zipMimetype: 'application/vnd.oasis.opendocument.text',
  },
  odp: {
    extensions: ['odp'],
    mediaTypes: ['application/vnd.oasis.opendocument.presentation'],
    magic: 'zip',
    zipMimetype: 'application/vnd.oasis.opendocument.presentation',
  },
  ods: {
    extensions: ['ods'],
    mediaTypes: ['application/vnd.oasis.opendocument.spreadsheet'],
    magic: 'zip',
    zipMimetype: 'application/vnd.oasis.opendocument.spreadsheet',
  },
  rtf: { extensions: ['rtf'], mediaTypes: ['application/rtf', 'text/rtf', 'application/x-rtf'], magic: 'rtf' },
  epub: { extensions: ['epub'], mediaTypes: ['application/epub+zip'], magic: 'zip', zipMimetype: 'application/epub+zip' },
  html: { extensions: ['html', 'htm', 'xhtml'], mediaTypes: ['text/html', 'application/xhtml+xml'], magic: 'text' },
  md: {
    extensions: ['md', 'markdown', 'mdown', 'mkd'],
    mediaTypes: ['text/markdown', 'text/x-markdown'],
    magic: 'text',
  },
  txt: { extensions: ['txt', 'text'], mediaTypes: ['text/plain'], magic: 'text' },
  csv: {
    extensions: ['csv', 'tsv'],
    mediaTypes: ['text/csv', 'application/csv', 'text/x-csv', 'text/tab-separated-values'],
    magic: 'text',
  },
  json: { extensions: ['json'], mediaTypes: ['application/json', 'text/json'], magic: 'text' },
} as const satisfies Record<string, FileTypeInfo>;

export type FileSourceType = keyof typeof SUPPORTED_TYPES;

/** Source types of documents that are not uploaded files (pasted text, fetched URL). */
export const NON_FILE_SOURCE_TYPES = ['text', 'url'] as const;

/** Every source_type value a document row can carry. */
export const ALL_SOURCE_TYPES: string[] = [...Object.keys(SUPPORTED_TYPES), ...NON_FILE_SOURCE_TYPES];

/** How many leading bytes callers should hand to checkMagic. */
export const MAGIC_HEAD_BYTES = 8192;

const table: Record<string, FileTypeInfo> = SUPPORTED_TYPES;

function extensionOf(filename: string): string | null {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return null; // ".bashrc" and "name." carry no extension
  return base.slice(dot + 1).toLowerCase();
}

function bareMediaType(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

/** Aliases a client may pass as source_type override. */
const OVERRIDE_ALIASES: Record<string, string> = { htm: 'html', xhtml: 'html', markdown: 'md', plain: 'txt', tsv: 'csv' };

export function isFileSourceType(type: string): type is FileSourceType {
  return Object.hasOwn(SUPPORTED_TYPES, type);
}

/**
 * Decide the source_type of an upload. Returns null when unsupported (caller answers 400
 * UNSUPPORTED_FILE_TYPE). Order: explicit override, then extension, then media type (only when
 * the name has no extension, so "photo.png" sent as text/plain stays unsupported).
 */
export function detectSourceType(filename: string, mediaType?: string, override?: string): string | null {
  if (override !== undefined && override.trim() !== '') {
    const o = override.trim().toLowerCase();
    const resolved = OVERRIDE_ALIASES[o] ?? o;
    if (isFileSourceType(resolved) || (NON_FILE_SOURCE_TYPES as readonly string[]).includes(resolved)) return resolved;
    return null;
  }
  const ext = extensionOf(filename);
  if (ext !== null) {
    for (const [type, info] of Object.entries(table)) if (info.extensions.includes(ext)) return type;
    return null;
  }
  if (mediaType) {
    const mt = bareMediaType(mediaType);
    for (const [type, info] of Object.entries(table)) if (info.mediaTypes.includes(mt)) return type;
  }
  return null;
}

function startsWith(head: Uint8Array, bytes: number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  return bytes.every((b, i) => head[at + i] === b);
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
const UTF8_BOM = [0xef, 0xbb, 0xbf];

function indexOfBytes(head: Uint8Array, needle: number[], limit: number): number {
  const last = Math.min(head.length - needle.length, limit);
  for (let i = 0; i <= last; i++) if (startsWith(head, needle, i)) return i;
  return -1;
}

/** ODF and EPUB store an uncompressed "mimetype" entry first; when present it must agree. */
function zipMimetypeMatches(head: Uint8Array, expected: string): boolean {
  if (head.length < 30) return true;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const method = view.getUint16(8, true);
  const compressedSize = view.getUint32(18, true);
  const nameLen = view.getUint16(26, true);
  const extraLen = view.getUint16(28, true);
  const name = new TextDecoder().decode(head.subarray(30, 30 + nameLen));
  if (name !== 'mimetype' || method !== 0) return true; // not announced: nothing to contradict
  const dataStart = 30 + nameLen + extraLen;
  if (head.length < dataStart + compressedSize) return true;
  const value = new TextDecoder().decode(head.subarray(dataStart, dataStart + compressedSize)).trim();
  return value === expected;
}

function looksLikeText(head: Uint8Array): boolean {
  if (head.length === 0) return true; // empty is text; extraction reports "no text found"
  // UTF-16 text legitimately contains NULs; the BOM is the only reliable tell.
  if (startsWith(head, [0xff, 0xfe]) || startsWith(head, [0xfe, 0xff])) return true;
  const body = startsWith(head, UTF8_BOM) ? head.subarray(3) : head;
  let control = 0;
  for (const b of body) {
    if (b === 0) return false;
    // C0 controls other than tab/newline/vertical-tab/form-feed/carriage-return/escape
    if (b < 0x20 && b !== 9 && b !== 10 && b !== 11 && b !== 12 && b !== 13 && b !== 27) control++;
  }
  // A few stray control bytes happen in real text; binary formats are full of them.
  return control <= Math.max(2, body.length * 0.05);
}

/**
 * Validate the first bytes (pass at least MAGIC_HEAD_BYTES, or the whole file if shorter) against
 * the declared type. false → caller answers 400 INVALID_FILE_CONTENT.
 */
export function checkMagic(sourceType: string, head: Uint8Array): boolean {
  if (sourceType === 'text') return looksLikeText(head);
  if (!isFileSourceType(sourceType)) return false;
  const info: FileTypeInfo = SUPPORTED_TYPES[sourceType];
  switch (info.magic) {
    case 'pdf':
      // Readers accept junk (e.g. a mail header) before %PDF- within the first 1 KiB.
      return indexOfBytes(head, ascii('%PDF-'), 1024) >= 0;
    case 'zip':
      return startsWith(head, [0x50, 0x4b, 0x03, 0x04]) && (!info.zipMimetype || zipMimetypeMatches(head, info.zipMimetype));
    case 'rtf': {
      let i = startsWith(head, UTF8_BOM) ? 3 : 0;
      while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
      return startsWith(head, ascii('{\\rtf'), i);
    }
    case 'text':
      return looksLikeText(head);
  }
}
