import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../daemon/src/config.js';
import { createEmbeddingProvider, embeddingConfigFrom } from '../daemon/src/embeddings/index.js';
import { OpenAIEmbeddingProvider, type OpenAIProviderOptions } from '../daemon/src/embeddings/openai.js';
import { cosineSimilarity, EmbeddingRejectedError, EmbeddingUnavailableError } from '../daemon/src/embeddings/types.js';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai-server.js';

// The official `openai` client inside OpenAIEmbeddingProvider talks real HTTP to the stand-in.
describe('OpenAI-compatible embeddings (EMBEDDING_PROVIDER=openai)', () => {
  let fake: FakeOpenAI;
  const open: OpenAIEmbeddingProvider[] = [];
  const provider = (o: OpenAIProviderOptions = {}, server = fake) => {
    const p = new OpenAIEmbeddingProvider({ baseUrl: server.url, backoffBaseMs: 5, ...o });
    open.push(p);
    return p;
  };
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(async () => {
    for (const p of open) await p.close();
    await fake.close();
  });
  const since = (n: number) => fake.requests.slice(n);

  it('batches by count and keeps input order even when the server answers out of order', async () => {
    const shuffled = await startFakeOpenAI({ reverseOrder: true });
    try {
      const p = provider({ batchSize: 4 }, shuffled);
      const texts = Array.from({ length: 10 }, (_, i) => `document number ${i} about topic ${i % 3}`);
      const vectors = await p.embed(texts);
      assert.deepEqual(
        shuffled.requests.map((r) => r.inputs.length),
        [4, 4, 2],
      );
      assert.ok(shuffled.requests.every((r) => r.model === 'text-embedding-3-small' && r.encodingFormat === 'float'));
      for (const [i, t] of texts.entries()) {
        const [one] = await p.embed([t]);
        assert.ok(cosineSimilarity(vectors[i]!, one!) > 0.999999, `row ${i} out of order`);
        assert.ok(Math.abs(Math.hypot(...vectors[i]!) - 1) < 1e-9);
      }
      assert.deepEqual(await p.embed([]), []);
    } finally {
      await shuffled.close();
    }
  });

  it('batches by total tokens under the server’s per-request limit', async () => {
    const strict = await startFakeOpenAI({ maxRequestTokens: 60 });
    try {
      const p = provider({ batchTokens: 60 }, strict);
      // 25 bytes each: at most two fit in 60 tokens by the byte bound the provider packs with.
      const texts = Array.from({ length: 5 }, (_, i) => `alpha beta gamma delta ${i}`);
      assert.equal((await p.embed(texts)).length, 5);
      assert.deepEqual(
        strict.requests.map((r) => r.inputs.length),
        [2, 2, 1],
      );
      assert.ok(strict.requests.every((r) => r.status === 200));
    } finally {
      await strict.close();
    }
  });

  it('truncates inputs over the token limit with a warning instead of failing', async () => {
    const strict = await startFakeOpenAI({ maxInputTokens: 50 });
    const warnings: { obj: any; msg: string }[] = [];
    try {
      const p = provider({ maxInputTokens: 50, logger: { warn: (obj, msg) => warnings.push({ obj, msg }) } }, strict);
      const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
      const [v1, v2] = await p.embed([long, 'short text stays whole']);
      assert.equal(v1!.length, 96);
      assert.equal(v2!.length, 96);
      const sent = strict.requests.at(-1)!.inputs;
      assert.ok(sent[0]!.length < long.length && long.startsWith(sent[0]!), 'a prefix of the long input was sent');
      assert.equal(sent[1], 'short text stays whole');
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!.msg, /truncated/);
      assert.equal(warnings[0]!.obj.limit, 50);
      assert.ok(warnings[0]!.obj.tokens[0] > 50);
    } finally {
      await strict.close();
    }
  });

  it('sends EMBEDDING_DIMENSIONS as `dimensions` and knows the length without asking', async () => {
    const n = fake.requests.length;
    const p = provider({ dimensions: 32 });
    assert.equal(p.configuredDimension, 32);
    assert.equal(await p.dimension(), 32);
    assert.equal(fake.requests.length, n, 'no probe request');
    const [v] = await p.embed(['shortened vectors']);
    assert.equal(v!.length, 32);
    assert.equal(since(n)[0]!.dimensions, 32);
  });

  it('detects the dimension from the first answer when none is configured, probing once', async () => {
    const n = fake.requests.length;
    const p = provider({ model: 'text-embedding-ada-002' });
    const [a, b] = await Promise.all([p.dimension(), p.dimension()]);
    assert.deepEqual([a, b, await p.dimension()], [64, 64, 64]);
    assert.equal(since(n).length, 1);
    assert.equal(since(n)[0]!.dimensions, undefined, '`dimensions` is not sent unless configured');
  });

  it('drops `dimensions` for models that refuse it, and then checks the native length', async () => {
    let n = fake.requests.length;
    const same = provider({ model: 'text-embedding-ada-002', dimensions: 64 });
    assert.equal((await same.embed(['x']))[0]!.length, 64);
    assert.deepEqual(
      since(n).map((r) => [r.status, r.dimensions]),
      [
        [400, 64],
        [200, undefined],
      ],
    );
    n = fake.requests.length;
    await same.embed(['y']);
    assert.deepEqual(
      since(n).map((r) => r.dimensions),
      [undefined],
      'remembered',
    );
    for (const model of ['text-embedding-ada-002', 'local-bge']) {
      const other = provider({ model, dimensions: 16 });
      await assert.rejects(other.embed(['x']), (err: Error) => {
        assert.ok(err instanceof EmbeddingRejectedError, String(err));
        assert.match(err.message, /EMBEDDING_DIMENSIONS is 16/);
        return true;
      });
    }
  });

  it('fails fast on 401 and 404 with the provider’s message, as a permanent error', async () => {
    const locked = await startFakeOpenAI({ apiKey: 'sk-right' });
    try {
      await assert.rejects(provider({ apiKey: 'sk-wrong' }, locked).embed(['x']), (err: Error & { permanent?: boolean }) => {
        assert.ok(err instanceof EmbeddingRejectedError, String(err));
        assert.equal(err.permanent, true);
        assert.match(err.message, /HTTP 401: Incorrect API key provided/);
        return true;
      });
      assert.equal(locked.requests.length, 1, 'no retry');
      assert.equal(locked.requests[0]!.authorization, 'Bearer sk-wrong');
      assert.equal((await provider({ apiKey: 'sk-right' }, locked).embed(['x'])).length, 1);
      await assert.rejects(provider({ model: 'no-such-model' }, locked).embed(['x']), /HTTP 401/);
    } finally {
      await locked.close();
    }
    const n = fake.requests.length;
    await assert.rejects(provider({ model: 'no-such-model' }).embed(['x']), (err: Error) => {
      assert.ok(err instanceof EmbeddingRejectedError);
      assert.match(err.message, /HTTP 404: The model `no-such-model` does not exist/);
      return true;
    });
    assert.equal(since(n).length, 1);
    assert.equal(since(n)[0]!.authorization, undefined, 'no key configured: no Authorization header');
  });

  it('retries 429 and 5xx, waiting as long as Retry-After says', async () => {
    const n = fake.requests.length;
    fake.failNext({ status: 429, retryAfter: '1' }, { status: 503 });
    const [v] = await provider().embed(['eventually']);
    assert.equal(v!.length, 96);
    const reqs = since(n);
    assert.deepEqual(
      reqs.map((r) => r.status),
      [429, 503, 200],
    );
    assert.ok(reqs[1]!.at - reqs[0]!.at >= 950, `waited ${reqs[1]!.at - reqs[0]!.at} ms after Retry-After: 1`);
  });

  it('gives up as "unavailable" after the retries, or at once when Retry-After is too long', async () => {
    let n = fake.requests.length;
    fake.failNext({ status: 500 }, { status: 502 }, { status: 503 });
    await assert.rejects(provider({ retries: 2 }).embed(['x']), (err: Error) => {
      assert.ok(err instanceof EmbeddingUnavailableError, String(err));
      assert.match(err.message, /HTTP 503/);
      return true;
    });
    assert.equal(since(n).length, 3);
    n = fake.requests.length;
    fake.failNext({ status: 429, retryAfter: '120', message: 'Rate limit reached for requests' });
    await assert.rejects(provider().embed(['x']), /HTTP 429: Rate limit reached for requests \(asks to retry in 120 s\)/);
    assert.equal(since(n).length, 1);
    // A search query waits at most 2 s before hybrid search goes text-only.
    n = fake.requests.length;
    fake.failNext({ status: 429, retryAfter: '5' });
    await assert.rejects(provider().embed(['query'], { interactive: true }), EmbeddingUnavailableError);
    assert.equal(since(n).length, 1);
  });

  it('halves a batch the server calls too large (413) and reports unreachable servers as unavailable', async () => {
    const tei = await startFakeOpenAI({ maxInputs: 3, maxInputsStatus: 413 });
    try {
      const texts = Array.from({ length: 8 }, (_, i) => `text ${i}`);
      const vectors = await provider({ batchSize: 8 }, tei).embed(texts);
      assert.equal(vectors.length, 8);
      assert.deepEqual(
        tei.requests.filter((r) => r.status === 200).flatMap((r) => r.inputs),
        texts,
      );
    } finally {
      await tei.close();
    }
    const gone = await startFakeOpenAI();
    await gone.close();
    await assert.rejects(provider({}, gone).embed(['x']), (err: Error) => {
      assert.ok(err instanceof EmbeddingUnavailableError, String(err));
      assert.match(err.message, /ECONNREFUSED/);
      return true;
    });
  });

  it('close() ends a retry wait at once; many requests leave no listeners behind', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const p = provider();
      for (let i = 0; i < 15; i++) await p.embed([`request ${i}`]);
      const n = fake.requests.length;
      fake.failNext({ status: 429, retryAfter: '30' });
      const pending = p.embed(['waits 30 s']);
      await fake.waitForRequests(n + 1);
      const started = Date.now();
      await p.close();
      await assert.rejects(pending, /closed/);
      assert.ok(Date.now() - started < 1000);
      await assert.rejects(p.embed(['again']), /closed/);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('is configured from the environment, refusing settings that would be ignored', () => {
    const env = {
      EMBEDDING_PROVIDER: 'openai',
      OPENAI_BASE_URL: fake.url,
      EMBEDDING_MODEL: 'text-embedding-3-small',
      EMBEDDING_DIMENSIONS: '32',
    };
    const p = createEmbeddingProvider(embeddingConfigFrom(loadConfig(env)));
    open.push(p as OpenAIEmbeddingProvider);
    assert.equal(p.name, 'openai');
    assert.equal(p.model, 'text-embedding-3-small');
    assert.equal(p.configuredDimension, 32);
    assert.equal(loadConfig({ EMBEDDING_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x' }).OPENAI_BASE_URL, 'https://api.openai.com/v1');
    assert.throws(
      () => loadConfig({ EMBEDDING_PROVIDER: 'openai' }),
      (e: Error) => e instanceof ConfigError && /OPENAI_API_KEY/.test(e.message),
    );
    assert.throws(() => loadConfig({ EMBEDDING_DIMENSIONS: '256' }), /EMBEDDING_DIMENSIONS: only EMBEDDING_PROVIDER=openai/);
    assert.throws(() => loadConfig({ EMBEDDING_PROVIDER: 'openai', OPENAI_BASE_URL: 'not a url' }), /OPENAI_BASE_URL/);
    // docker-compose passes `${VAR:-}` as an empty string: that means unset.
    const blank = loadConfig({ ...env, OPENAI_API_KEY: '', EMBEDDING_DIMENSIONS: '', HYBRID_MIN_SIMILARITY: '' });
    assert.equal(blank.OPENAI_API_KEY, undefined);
    assert.equal(blank.EMBEDDING_DIMENSIONS, undefined);
    assert.equal(blank.HYBRID_MIN_SIMILARITY, undefined);
    assert.throws(() => loadConfig({ HYBRID_MIN_SIMILARITY: '1.5' }), /HYBRID_MIN_SIMILARITY/);
  });
});
