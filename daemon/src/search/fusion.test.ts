import assert from 'node:assert/strict';
import { test } from 'node:test';
import { candidateList, keepRelevant, rrf, single, weighted, type Candidate } from './fusion.js';
import { defaultFusion, modelDefaults } from './fusion-defaults.js';

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

test('keepRelevant: drops vector-only chunks under the floor, never text matches, keeps order and scores', () => {
  const fused = weighted([c('t', 4, 1)], [c('t', 0.1, 3), c('close', 0.6, 1), c('far', 0.2, 2)], 0.5);
  const { kept, dropped } = keepRelevant(fused, 0.3);
  assert.deepEqual(
    kept.map((x) => x.chunkId),
    fused.filter((x) => x.chunkId !== 'far').map((x) => x.chunkId),
  );
  assert.equal(dropped, 1);
  assert.deepEqual(
    kept,
    fused.filter((x) => x.chunkId !== 'far'),
  );
  assert.equal(keepRelevant(fused, 0.6).kept.length, 2, 'the floor is inclusive');
  assert.equal(keepRelevant(fused, null).kept, fused);
  assert.deepEqual(
    keepRelevant(single([c('a', 0.5, 1), c('b', 0.1, 2)], 'vector'), 0.4).kept.map((x) => x.chunkId),
    ['a'],
  );
});

test('model defaults: every row is marked measured or assumed with a note; only a measured row has a fixed floor; unknown models get rrf', () => {
  for (const model of ['use-lite-512', 'nomic-embed-text', 'text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002']) {
    const d = modelDefaults(model);
    assert.equal(d.row, model);
    for (const e of [d.fusion, d.floor]) {
      assert.ok(['measured', 'assumed'].includes(e.basis), model);
      assert.ok(e.note.length > 20, model);
    }
    // A fixed floor only where measured (bench:quality); every other model relies on the background floor.
    assert.equal(typeof d.floor.value, d.floor.basis === 'measured' ? 'number' : 'object', model);
  }
  assert.equal(modelDefaults('use-lite-512').floor.basis, 'measured');
  const other = modelDefaults('bge-m3');
  assert.equal(other.row, 'other');
  assert.equal(other.floor.value, null);
  assert.deepEqual(defaultFusion('bge-m3'), { method: 'rrf', semanticRatio: 0.5 });
  assert.equal(modelDefaults('__proto__').row, 'other');
});

test('candidateList: one row of aggregated texts reads back as the ranked list, scores to the same doubles', () => {
  // PostgreSQL's float8 text form is the shortest exact one: Number() reads the same double back.
  const scores = [0.1 + 0.2, 1 / 3, 12.345678901234567, 5e-324, -0.25];
  const ids = ['a1', 'b2', 'c3', 'd4', 'e5'];
  const out = candidateList(ids.join(','), scores.map(String).join(','));
  assert.deepEqual(
    out,
    ids.map((id, i) => c(id, scores[i]!, i + 1)),
  );
  // No candidate (string_agg over no rows is null), whatever the other column holds.
  assert.deepEqual(candidateList(null, null), []);
  assert.deepEqual(candidateList('', ''), []);
  assert.deepEqual(candidateList(null, '1'), []);
});
