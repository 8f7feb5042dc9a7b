import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmbeddingUnavailableError, type EmbeddingProvider } from '../embeddings/types.js';
import { QueryEmbeddingCache } from './query-cache.js';

/** A provider that answers from a function and counts the texts it embeds. */
function provider(model: string, vec: (text: string) => number[], opts: { fail?: boolean; delayMs?: number } = {}) {
  const seen: string[] = [];
  const p: EmbeddingProvider & { seen: string[]; fail: boolean } = {
    name: 'test',
    model,
    seen,
    fail: opts.fail ?? false,
    dimension: async () => 2,
    async embed(texts) {
      seen.push(...texts);
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (p.fail) throw new EmbeddingUnavailableError('down');
      return texts.map(vec);
    },
    close: async () => {},
  };
  return p;
}

test('a repeated query is answered from the cache; the least recently used entry is evicted first', async () => {
  const cache = new QueryEmbeddingCache(2);
  const m = provider('m', (t) => [t.length, 1]);
  assert.deepEqual(await cache.embed(m, 'aa'), [2, 1]);
  assert.deepEqual(await cache.embed(m, 'aa'), [2, 1]);
  assert.deepEqual(m.seen, ['aa']);
  await cache.embed(m, 'bbb');
  await cache.embed(m, 'aa'); // refreshes "aa": "bbb" is now the oldest
  await cache.embed(m, 'c'); // evicts "bbb"
  await cache.embed(m, 'aa');
  await cache.embed(m, 'bbb');
  assert.deepEqual(m.seen, ['aa', 'bbb', 'c', 'bbb']);
  assert.equal(cache.hits, 3);
});

test('concurrent requests for one text share a single model call', async () => {
  const cache = new QueryEmbeddingCache(10);
  const m = provider('m', () => [1, 0], { delayMs: 20 });
  const out = await Promise.all(Array.from({ length: 8 }, () => cache.embed(m, 'same')));
  assert.equal(m.seen.length, 1);
  for (const v of out) assert.deepEqual(v, [1, 0]);
});

test('a failure is not cached: the next request asks the provider again', async () => {
  const cache = new QueryEmbeddingCache(10);
  const m = provider('m', () => [1, 0], { fail: true });
  await assert.rejects(cache.embed(m, 'q'), EmbeddingUnavailableError);
  m.fail = false;
  assert.deepEqual(await cache.embed(m, 'q'), [1, 0]);
  assert.deepEqual(m.seen, ['q', 'q']);
});

test('entries are keyed by model: another model never receives a cached vector', async () => {
  const cache = new QueryEmbeddingCache(10);
  const a = provider('model-a', () => [1, 0]);
  const b = provider('model-b', () => [0, 1]);
  assert.deepEqual(await cache.embed(a, 'same text'), [1, 0]);
  assert.deepEqual(await cache.embed(b, 'same text'), [0, 1]);
  assert.deepEqual(await cache.embed(a, 'same text'), [1, 0]);
  assert.deepEqual([a.seen, b.seen], [['same text'], ['same text']]);
});
