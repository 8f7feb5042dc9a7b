/** pdf.js's legacy build, loaded once per thread, with Node's own Array.prototype.push kept (pdfjs-load.mjs). */
export function importPdfJs(): Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')>;
