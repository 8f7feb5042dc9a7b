import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEmbeddingProvider } from './index.js';
import { OllamaEmbeddingProvider } from './ollama.js';
import { startFakeOllama, type FakeOllama } from '../../../test/helpers/fake-ollama-server.js';
import { cosineSimilarity, EmbeddingUnavailableError } from './types.js';

describe('OllamaEmbeddingProvider against the fake /api/embed', () => {
  let fake: FakeOllama;
  before(async () => {
    fake = await startFakeOllama();
  });
  after(() => fake.close());

  it('batches requests and keeps input order', async () => {
    const provider = new OllamaEmbeddingProvider({ host: fake.url, batchSize: 4 });
    const texts = Array.from({ length: 10 }, (_, i) => `document number ${i} about topic ${i % 3}`);
    const before = fake.requests;
    const vectors = await provider.embed(texts);
    assert.equal(fake.requests - before, 3);
    assert.deepEqual(fake.batchSizes.slice(-3), [4, 4, 2]);
    assert.equal(vectors.length, 10);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await provider.embed([texts[i]!]);
      assert.ok(cosineSimilarity(vectors[i]!, single!) > 0.999999, `row ${i} out of order`);
      assert.ok(Math.abs(Math.hypot(...vectors[i]!) - 1) < 1e-9);
    }
    assert.deepEqual(await provider.embed([]), []);
    await provider.close();
  });

  it('uses batch size 64 and model nomic-embed-text by default', async () => {
    const provider = createEmbeddingProvider({ provider: 'ollama', ollamaHost: fake.url });
    assert.equal(provider.name, 'ollama');
    assert.equal(provider.model, 'nomic-embed-text');
    await provider.embed(Array.from({ length: 130 }, (_, i) => `text ${i}`));
    assert.deepEqual(fake.batchSizes.slice(-3), [64, 64, 2]);
    await provider.close();
  });

  it('gives word-sharing texts similar vectors (stand-in sanity)', async () => {
    const provider = new OllamaEmbeddingProvider({ host: fake.url });
    const [a, b, c] = await provider.embed(['postgres vector index tuning', 'tuning the postgres vector index', 'banana bread recipe']);
    assert.ok(cosineSimilarity(a!, b!) > 0.8);
    assert.ok(cosineSimilarity(a!, c!) < 0.3);
    await provider.close();
  });

  it('probes the dimension once and caches it', async () => {
    const small = await startFakeOllama({ dimension: 384 });
    try {
      const provider = new OllamaEmbeddingProvider({ host: small.url });
      const [d1, d2] = await Promise.all([provider.dimension(), provider.dimension()]);
      assert.equal(d1, 384);
      assert.equal(d2, 384);
      assert.equal(await provider.dimension(), 384);
      assert.equal(small.requests, 1);
      await provider.close();
    } finally {
      await small.close();
    }
  });

  it('throws EmbeddingUnavailableError while the server answers 503, recovers after', async () => {
    const provider = new OllamaEmbeddingProvider({ host: fake.url });
    fake.setDown(true);
    try {
      await assert.rejects(provider.embed(['hello']), EmbeddingUnavailableError);
      // A failed probe is not cached.
      await assert.rejects(provider.dimension(), EmbeddingUnavailableError);
    } finally {
      fake.setDown(false);
    }
    assert.equal(await provider.dimension(), 768);
    assert.equal((await provider.embed(['hello']))[0]!.length, 768);
    await provider.close();
  });

  it('maps 500 to EmbeddingUnavailableError but 404 (unknown model) to a plain error', async () => {
    const failing500 = await startFakeOllama({ failWith: 500 });
    const failing404 = await startFakeOllama({ failWith: 404 });
    try {
      const p500 = new OllamaEmbeddingProvider({ host: failing500.url });
      await assert.rejects(p500.embed(['x']), EmbeddingUnavailableError);
      const p404 = new OllamaEmbeddingProvider({ host: failing404.url, model: 'missing-model' });
      await assert.rejects(p404.embed(['x']), (err: Error) => {
        assert.ok(!(err instanceof EmbeddingUnavailableError));
        assert.match(err.message, /404/);
        return true;
      });
    } finally {
      await failing500.close();
      await failing404.close();
    }
  });

  it('throws EmbeddingUnavailableError when nothing listens on the port', async () => {
    const gone = await startFakeOllama();
    const url = gone.url;
    await gone.close();
    const provider = new OllamaEmbeddingProvider({ host: url });
    await assert.rejects(provider.embed(['hello']), (err: Error) => {
      assert.ok(err instanceof EmbeddingUnavailableError, String(err));
      assert.match(err.message, /ECONNREFUSED/);
      return true;
    });
    await assert.rejects(provider.dimension(), EmbeddingUnavailableError);
  });

  it('times out slow requests as EmbeddingUnavailableError', async () => {
    const slow = await startFakeOllama({ delayMs: 500 });
    try {
      const provider = new OllamaEmbeddingProvider({ host: slow.url, timeoutMs: 100 });
      await assert.rejects(provider.embed(['hello']), (err: Error) => {
        assert.ok(err instanceof EmbeddingUnavailableError, String(err));
        assert.match(err.message, /timed out/);
        return true;
      });
    } finally {
      await slow.close();
    }
  });

  it('close() aborts in-flight requests promptly', async () => {
    const slow = await startFakeOllama({ delayMs: 2000 });
    try {
      const provider = new OllamaEmbeddingProvider({ host: slow.url });
      const pending = provider.embed(['hello']);
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await provider.close();
      await assert.rejects(pending, /closed/);
      assert.ok(Date.now() - started < 1000);
      await assert.rejects(provider.embed(['again']), /closed/);
    } finally {
      await slow.close();
    }
  });
});
