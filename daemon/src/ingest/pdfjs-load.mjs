// Loads pdf.js (its legacy build, the one that runs on Node 20) with its worker registered in-thread,
// and undoes the one global change its bundled core-js makes that costs us: core-js finds Node 20's
// Array.prototype.push wrong about arrays whose length is read-only (an edge no caller here has)
// and replaces it, for every array in the thread, with a JavaScript version. In an extraction thread
// that version was about a sixth of a PDF's CPU, and xmldom and officeparser pushed through it too.
// Plain .mjs: extract-worker.mjs imports it before tsx is registered; pdf-text.ts and
// office-modules.ts import it too.
const nativePush = Array.prototype.push;
let loading;

export function importPdfJs() {
  loading ??= (async () => {
    const [pdfjs, worker] = await Promise.all([
      import('pdfjs-dist/legacy/build/pdf.mjs'),
      import('pdfjs-dist/legacy/build/pdf.worker.mjs'),
    ]);
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
