import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BuiltinEmbeddingProvider, truncateForModel } from './builtin.js';
import { cosineSimilarity, EmbeddingUnavailableError } from './types.js';

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

function sentence(i: number, words: number): string {
  const vocab = ['river', 'index', 'database', 'garden', 'search', 'vector', 'mountain', 'ledger', 'query', 'forest'];
  return Array.from({ length: words }, (_, k) => vocab[(i * 3 + k * 7) % vocab.length]).join(' ');
}

describe('BuiltinEmbeddingProvider (USE-lite in a worker)', () => {
  // Small batches so that ordering across several worker round-trips is exercised.
  const provider = new BuiltinEmbeddingProvider({ batchSize: 4 });

  before(async () => {
    assert.equal(await provider.backend(), 'wasm'); // also loads the model
  });
  after(() => provider.close());

  it('reports name, model and dimension', async () => {
    assert.equal(provider.name, 'builtin');
    assert.equal(provider.model, 'use-lite-512');
    assert.equal(await provider.dimension(), 512);
  });

  it('puts related sentences close and unrelated ones far apart', async () => {
    const [cat, feline, stocks] = await provider.embed(['cat sat on mat', 'feline rested on rug', 'stock markets fell']);
    for (const v of [cat!, feline!, stocks!]) {
      assert.equal(v.length, 512);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5, `not unit length: ${norm(v)}`);
    }
    const related = cosineSimilarity(cat!, feline!);
    const unrelated = cosineSimilarity(cat!, stocks!);
    assert.ok(related > 0.6 && related < 0.8, `cat/feline ${related}`); // measured 0.687
    assert.ok(unrelated < 0.3, `cat/stocks ${unrelated}`); // measured 0.181
  });

  it('preserves input order across batches and mixed lengths', async () => {
    // Varying lengths make the provider reorder internally (it sorts by length).
    const texts = Array.from({ length: 11 }, (_, i) => sentence(i, 3 + ((i * 5) % 17)));
    const batched = await provider.embed(texts);
    assert.equal(batched.length, texts.length);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await provider.embed([texts[i]!]);
      // Padding inside a batch perturbs floats slightly, never the identity.
      assert.ok(cosineSimilarity(batched[i]!, single!) > 0.999, `row ${i} mismatched`);
    }
  });

  it('returns one vector per input even for empty strings', async () => {
    // The library drops trailing zero-token rows; the worker guards against it.
    const out = await provider.embed(['hello world', '', '   ', '']);
    assert.equal(out.length, 4);
    for (const v of out) assert.equal(v.length, 512);
    assert.deepEqual(await provider.embed([]), []);
  });

  it('keeps the main event loop responsive during a large embed', async () => {
    // One worker call of 12 chunk-sized texts takes ~1 s of CPU; on the main
    // thread that would freeze the interval below for the whole time.
    const big = new BuiltinEmbeddingProvider({ batchSize: 16 });
    try {
      await big.embed(['warm up']);
      const texts = Array.from({ length: 12 }, (_, i) => sentence(i, 300));
      let ticks = 0;
      let maxGap = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
        ticks++;
      }, 5);
      const started = performance.now();
      const out = await big.embed(texts);
      const elapsed = performance.now() - started;
      clearInterval(timer);
      assert.equal(out.length, texts.length);
      // Generous bound: the box has 2 shared cores, so scheduler noise is real.
      assert.ok(maxGap < Math.max(250, elapsed / 4), `event loop stalled ${maxGap.toFixed(0)} ms of ${elapsed.toFixed(0)} ms`);
      assert.ok(ticks > elapsed / 50, `only ${ticks} ticks in ${elapsed.toFixed(0)} ms`);
    } finally {
      await big.close();
    }
  });

  it('turns a dead worker into EmbeddingUnavailableError and respawns', async () => {
    const p = new BuiltinEmbeddingProvider();
    try {
      await p.embed(['warm up']);
      const pending = p.embed(['in flight when the worker dies']);
      // Simulate a crash (e.g. OOM) of the inference thread.
      await (p as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      await assert.rejects(pending, EmbeddingUnavailableError);
      const [v] = await p.embed(['after respawn']);
      assert.equal(v!.length, 512);
    } finally {
      await p.close();
    }
  });

  it('rejects after close and can be closed twice', async () => {
    const p = new BuiltinEmbeddingProvider();
    await p.close();
    await assert.rejects(p.embed(['x']), /closed/);
    await p.close();
  });
});

describe('truncateForModel', () => {
  it('leaves short text alone', () => {
    assert.equal(truncateForModel('short text', 100), 'short text');
  });
  it('cuts at a word boundary', () => {
    const text = 'alpha beta gamma delta epsilon';
    assert.equal(truncateForModel(text, 19), 'alpha beta gamma');
  });
  it('hard-cuts text without usable spaces', () => {
    assert.equal(truncateForModel('x'.repeat(50), 10), 'x'.repeat(10));
  });
});
