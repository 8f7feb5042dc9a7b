// The media type of each file extension the service accepts: the first of its media types in
// daemon/src/ingest/file-types.ts (test/cli.docs-upload.test.ts keeps the two equal). The service
// detects the type from the extension; the media type is what it stores and serves on download.
const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  odt: 'application/vnd.oasis.opendocument.text',
  odp: 'application/vnd.oasis.opendocument.presentation',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  rtf: 'application/rtf',
  epub: 'application/epub+zip',
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'text/html',
  md: 'text/markdown',
  markdown: 'text/markdown',
  mdown: 'text/markdown',
  mkd: 'text/markdown',
  txt: 'text/plain',
  text: 'text/plain',
  csv: 'text/csv',
  tsv: 'text/csv',
  json: 'application/json',
};

/** `report.PDF` → `application/pdf`; undefined for extensions the service does not take. */
export function mediaTypeOf(filename: string): string | undefined {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? BY_EXTENSION[base.slice(dot + 1).toLowerCase()] : undefined;
}

export const MEDIA_TYPES: Readonly<Record<string, string>> = BY_EXTENSION;
