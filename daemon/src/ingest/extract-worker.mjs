// Worker thread that runs text extraction (officeparser/pdfjs are CPU-bound and synchronous in
// places), so the API's event loop stays responsive while the job worker extracts big files.
// Plain .mjs: Node 20 cannot start a .ts worker directly, so tsx is registered here first.
// The pool (extract-pool.ts) sends one document at a time and caps this thread's heap and time.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';
import { importPdfJs } from './pdfjs-load.mjs';

// pdf.js is imported before tsx is registered: through tsx's loader its 3 MB of modules take
// ~10x longer to load. extract.ts later gets the same, already evaluated, module instances.
await importPdfJs();
register();
const { extractText } = await import('./extract.ts');
// Parsers loaded: a thread the pool started ahead of any document (ExtractionPool.warm) is ready.
parentPort.postMessage({ type: 'ready' });

parentPort.on('message', async (msg) => {
  // Parsers are loaded: from here on the time limit applies to this document.
  parentPort.postMessage({ type: 'started' });
  try {
    const data = Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength);
    const result = await extractText({ sourceType: msg.sourceType, data, filename: msg.filename }, msg.limits);
    parentPort.postMessage({ type: 'done', result });
  } catch (err) {
    parentPort.postMessage({ type: 'failed', message: err?.message ?? String(err), permanent: err?.permanent === true });
  }
});
