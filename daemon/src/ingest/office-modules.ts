import { createRequire } from 'node:module';
import path from 'node:path';
import { importPdfJs } from './pdfjs-load.mjs';

type Loader = Record<'loadFileType' | 'loadPdfJs', (() => Promise<unknown>) | undefined>;

/**
 * officeparser loads its ESM-only dependencies (file-type for every document, pdf.js for every PDF)
 * with a dynamic import() per document (utils/moduleLoader.js: `import('url')`, then the module's
 * file URL). An import() of a loaded module returns the same instance, but it still resolves its
 * specifier, and under tsx's loader (the daemon and its extraction threads run with it) every
 * resolution is a round trip to the loader's thread with file-system checks: about 0.5 ms of CPU
 * per import, two per office document and four per PDF, more than parsing a small document costs.
 *
 * officeparser calls these loaders through their module's exports object at each call
 * (`moduleLoader_js_1.loadFileType()`), so replacing them there takes effect: pdf.js comes from
 * pdfjs-load.mjs (the same module, loaded once; a failed load is not kept), and file-type is not
 * loaded at all: officeparser gets `containerType` instead (below). Returns whether the loaders were
 * found (a later officeparser that loads differently simply keeps its own behaviour).
 */
export function memoiseOfficeModuleLoaders(): boolean {
  const require = createRequire(import.meta.url);
  let loader: Partial<Loader>;
  try {
    loader = require(path.join(path.dirname(require.resolve('officeparser')), 'utils', 'moduleLoader.js')) as Partial<Loader>;
  } catch {
    return false;
  }
  const names = ['loadFileType', 'loadPdfJs'] as const;
  if (!names.every((n) => typeof loader[n] === 'function')) return false;
  if ((loader.loadPdfJs as { memoised?: boolean }).memoised) return true;
  // pdf-text.ts reads PDFs itself; should officeparser ever load pdf.js, it gets the same one load.
  loader.loadPdfJs = Object.assign(() => importPdfJs(), { memoised: true });
  const sniffing = Promise.resolve({ fileTypeFromBuffer: async (data: Uint8Array) => containerType(data) });
  loader.loadFileType = Object.assign(() => sniffing, { memoised: true });
  return true;
}

/**
 * What officeparser gets for file-type's `fileTypeFromBuffer`. We always pass it the file's type,
 * and it then asks file-type only to warn when the bytes say otherwise; nothing reads that warning,
 * and the upload has already checked the magic bytes (file-types.ts). file-type answers by
 * inflating the archive's entries through web streams, which cost more than parsing a small
 * document (about a quarter of a small DOCX's extraction). The container's magic bytes answer
 * the question officeparser asks: "zip" for every zip-backed format it then parses as told, and
 * "pdf"/"rtf" as themselves, so it never scans the archive either.
 */
export function containerType(data: Uint8Array): { ext: string; mime: string } | undefined {
  const starts = (magic: number[]) => magic.every((b, i) => data[i] === b);
  if (starts([0x50, 0x4b, 0x03, 0x04])) return { ext: 'zip', mime: 'application/zip' };
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return { ext: 'pdf', mime: 'application/pdf' };
  if (starts([0x7b, 0x5c, 0x72, 0x74, 0x66])) return { ext: 'rtf', mime: 'application/rtf' };
  return undefined;
}

/** The loaders officeparser calls now (for tests). */
export function officeModuleLoaders(): Partial<Loader> {
  const require = createRequire(import.meta.url);
  return require(path.join(path.dirname(require.resolve('officeparser')), 'utils', 'moduleLoader.js')) as Partial<Loader>;
}
