// Loads pdf.js (its legacy build, the one that runs on Node 20) with its worker registered in-thread,
// and undoes the one global change its bundled core-js makes that costs us: core-js finds Node 20's
// Array.prototype.push wrong about arrays whose length is read-only (an edge no caller here has)
// and replaces it, for every array in the thread, with a JavaScript version. In an extraction thread
// that version was about a sixth of a PDF's CPU, and xmldom and officeparser pushed through it too.
// Plain .mjs: extract-worker.mjs imports it before tsx is registered; pdf-text.ts and
// office-modules.ts import it too.
//
// The worker module is loaded from its source with its decoder classes exported as well (a data:
// URL; the bundle imports nothing), so pdf-decode-limits.mjs can bound what they decode. The
// classes it needs are checked at load: a pdf.js release that renames one fails here, loudly.
import { readFile } from 'node:fs/promises';
import { limitPdfJsDecoders } from './pdf-decode-limits.mjs';

const nativePush = Array.prototype.push;
const DECODERS = ['DecodeStream', 'BrotliStream', 'JpegStream', 'JpxStream', 'Jbig2Stream'];

async function importWorkerWithDecoders() {
  const url = new URL(import.meta.resolve('pdfjs-dist/legacy/build/pdf.worker.mjs'));
  const source = await readFile(url, 'utf8');
  const missing = DECODERS.filter((name) => !new RegExp(`^class ${name} extends`, 'm').test(source));
  if (missing.length) throw new Error(`pdf.js's worker no longer defines ${missing.join(', ')}: pdf-decode-limits.mjs must follow it`);
  const exported = `${source}\nexport { ${DECODERS.map((name) => `${name} as __${name}`).join(', ')} };\n`;
  const worker = await import(`data:text/javascript;base64,${Buffer.from(exported).toString('base64')}`);
  limitPdfJsDecoders(Object.fromEntries(DECODERS.map((name) => [name, worker[`__${name}`]])));
  return worker;
}
let loading;

export function importPdfJs() {
  loading ??= (async () => {
    const [pdfjs, worker] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), importWorkerWithDecoders()]);
    if (Array.prototype.push !== nativePush)
      Object.defineProperty(Array.prototype, 'push', { value: nativePush, writable: true, enumerable: false, configurable: true });
    globalThis.pdfjsWorker ??= worker;
    return pdfjs;
  })().catch((err) => {
    // Not kept: the next document tries again.
    loading = undefined;
    throw err;
  });
  return loading;
}
