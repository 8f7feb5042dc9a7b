// Worker thread that runs text extraction (officeparser/pdfjs are CPU-bound and synchronous in
// places), so the API's event loop stays responsive while the job worker extracts big files.
// Plain .mjs: Node 20 cannot start a .ts worker directly, so tsx is registered here first.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { extractText } = await import('./extract.ts');

parentPort.on('message', async (msg) => {
  try {
    const result = await extractText({ sourceType: msg.sourceType, data: Buffer.from(msg.data), filename: msg.filename });
    parentPort.postMessage({ id: msg.id, ok: true, result });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, message: err?.message ?? String(err), permanent: err?.permanent === true });
  }
});
