import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rrf, single, weighted, type Candidate } from './fusion.js';

const c = (id: string, score: number, rank: number): Candidate => ({ chunkId: id, score, rank });

test('rrf: a chunk first in both channels scores 1; order follows summed reciprocal ranks', () => {
  const out = rrf([c('a', 9, 1), c('b', 5, 2)], [c('a', 0.9, 1), c('c', 0.8, 2)]);
  assert.equal(out[0]!.chunkId, 'a');
  assert.equal(out[0]!.score, 1);
  assert.ok(out.every((x) => x.score > 0 && x.score <= 1));
  assert.deepEqual(
    out.map((x) => x.chunkId),
    ['a', 'b', 'c'],
  );
});

test('weighted: normalised scores mixed by semantic ratio, within [0,1]', () => {
  const text = [c('a', 10, 1), c('b', 5, 2)];
  const vec = [c('b', 0.8, 1), c('c', 0.4, 2)];
  const textHeavy = weighted(text, vec, 0.2);
  assert.equal(textHeavy[0]!.chunkId, 'a');
  assert.ok(Math.abs(textHeavy[0]!.score - 0.8) < 1e-9);
  const vecHeavy = weighted(text, vec, 0.8);
  assert.equal(vecHeavy[0]!.chunkId, 'b');
  assert.ok(vecHeavy.every((x) => x.score >= 0 && x.score <= 1));
  assert.deepEqual(
    weighted(text, vec, 0)
      .map((x) => x.chunkId)
      .slice(0, 2),
    ['a', 'b'],
  );
});

test('single channel: text normalised by its best, vector similarity clamped', () => {
  assert.deepEqual(
    single([c('a', 4, 1), c('b', 2, 2)], 'text').map((x) => x.score),
    [1, 0.5],
  );
  assert.deepEqual(
    single([c('a', 1.2, 1), c('b', -0.3, 2)], 'vector').map((x) => x.score),
    [1, 0],
  );
  assert.deepEqual(rrf([], []), []);
});
