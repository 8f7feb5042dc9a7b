// PDF text straight from pdf.js, laid out into lines the way officeparser 7 lays them out, so the
// text (and so every chunk) is what officeparser gave, for less work.
//
// officeparser opens the document once more than we need (the page limit is checked on a first
// open of its own), then reads its metadata, attachments, every page's text with font lookups,
// and in a second pass every page again with its annotations, to build an AST of which we keep
// only the text. Here: one open, the page count checked on it, each page's text items once.
// On the bench corpus's PDFs that is about half the CPU (`bench:ingest`; docs/performance.md,
// 2026-11-27).
import { normalizeWhitespace } from './normalize.js';
import { limitDecoding } from './pdf-decode-limits.mjs';
import { importPdfJs } from './pdfjs-load.mjs';

/** pdf.js, loaded once per thread (pdfjs-load.mjs), the same module instance officeparser gets. */
export const loadPdfJs = importPdfJs;

/** Where a page's text is in the document's text (only PDFs have pages). */
export interface PageSpan {
  page: number;
  /** offset of the page's first character in the returned text */
  start: number;
  /** offset one past the page's last character */
  end: number;
}

/** A text item as pdf.js reports it (marked-content items have no `str`). */
interface Item {
  str: string;
  y: number;
  x: number;
}

/**
 * One page's text: items sorted top to bottom (a 7-unit tolerance) then left to right, a new line
 * where the baseline moves by more than 5 units, words of a line joined by a space. The same rules
 * and the same comparator as officeparser 7's PdfParser, so sorting gives the same order.
 */
export function layOutPage(items: Item[]): string {
  items.sort((a, b) => (Math.abs(b.y - a.y) > 7 ? b.y - a.y : a.x - b.x));
  const lines: string[] = [];
  let line: string | undefined;
  let lastY = -1;
  for (const { str, y } of items) {
    if (!str) continue;
    if (lastY !== -1 && Math.abs(y - lastY) > 5 && line !== undefined) {
      if (line.trim()) lines.push(line);
      line = undefined;
    }
    lastY = y;
    const blank = str.trim().length === 0;
    if (blank) {
      // Kept inside a line (after its first word), dropped before it.
      if (line) line += str;
      continue;
    }
    if (line === undefined) line = '';
    if (line.length > 0 && !line.endsWith(' ')) line += ' ';
    line += str;
  }
  if (line?.trim()) lines.push(line);
  return lines.join('\n');
}

export interface PdfTextResult {
  text: string;
  pages: PageSpan[];
}

/**
 * The document's text, one block per page with each page's offsets in the joined text. A page
 * pdf.js cannot read adds no text (as with officeparser). `maxPages`: refused before any page is
 * read. `decoding`: what pdf.js may decode (pdf-decode-limits.mjs), `onDecodeLimit` the error past
 * it, checked after each page (pdf.js may have caught the throw). Other errors are pdf.js's own
 * (InvalidPDFException, PasswordException, …): the caller words them.
 */
export async function pdfText(
  data: Uint8Array,
  opts: {
    maxPages?: number;
    onTooManyPages: (pages: number) => Error;
    decoding?: { maxStreamBytes: number; maxLiveBytes: number };
    onDecodeLimit?: (limit: 'stream' | 'live') => Error;
  },
): Promise<PdfTextResult> {
  const pdfjs = await loadPdfJs();
  const decoding = limitDecoding(opts.decoding ?? { maxStreamBytes: Number.POSITIVE_INFINITY, maxLiveBytes: Number.POSITIVE_INFINITY });
  const passed = () => {
    const limit = decoding.exceeded();
    if (limit) throw opts.onDecodeLimit?.(limit) ?? new Error(`PDF decoding passed its ${limit} limit`);
  };
  // pdf.js 6 compiles nothing from the file with eval (officeparser's isEvalSupported is gone from it).
  const task = pdfjs.getDocument({ data: new Uint8Array(data), verbosity: 0 });
  try {
    const doc = await task.promise.catch((err: unknown) => {
      passed();
      throw err;
    });
    if (opts.maxPages !== undefined && doc.numPages > opts.maxPages) throw opts.onTooManyPages(doc.numPages);
    const pages: PageSpan[] = [];
    let text = '';
    for (let n = 1; n <= doc.numPages; n++) {
      const items: Item[] = [];
      try {
        const page = await doc.getPage(n);
        const content = await page.getTextContent();
        for (const it of content.items) {
          const t = it as { str?: unknown; transform?: unknown };
          if (typeof t.str === 'string' && Array.isArray(t.transform) && t.transform.length >= 6)
            items.push({ str: t.str, x: t.transform[4] as number, y: t.transform[5] as number });
        }
        page.cleanup();
      } catch {
        // An unreadable page adds no text; the others still do.
      }
      passed();
      const pageText = normalizeWhitespace(layOutPage(items));
      if (pageText !== '' && text !== '') text += '\n\n';
      const start = text.length;
      text += pageText;
      pages.push({ page: n, start, end: text.length });
    }
    return { text, pages };
  } finally {
    decoding.end();
    await task.destroy().catch(() => {});
  }
}
