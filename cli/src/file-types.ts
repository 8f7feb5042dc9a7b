// Kept free of imports so that the daemon's tests can compare it with the daemon's own list.

/**
 * The extensions the service accepts (daemon/src/ingest/file-types.ts; a test keeps the two equal).
 * Other files are skipped without being sent, so an unchanged tree sends nothing at all.
 */
export const SYNC_EXTENSIONS: ReadonlySet<string> = new Set([
  'pdf',
  'docx',
  'pptx',
  'xlsx',
  'odt',
  'odp',
  'ods',
  'rtf',
  'epub',
  'html',
  'htm',
  'xhtml',
  'md',
  'markdown',
  'mdown',
  'mkd',
  'txt',
  'text',
  'csv',
  'tsv',
  'json',
]);
