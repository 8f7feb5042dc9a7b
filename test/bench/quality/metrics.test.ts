import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dedupeDocs, gradedNdcgAt, ndcgAt, recallAt, scoreRun } from './metrics.js';

test('nDCG@10 with binary relevance matches the pytrec_eval formula', () => {
  const rel = new Set(['a', 'b']);
  assert.equal(ndcgAt(['a', 'b', 'x'], rel, 10), 1);
  // Relevant at ranks 2 and 4: (1/log2 3 + 1/log2 5) / (1 + 1/log2 3).
  const expected = (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3));
  assert.ok(Math.abs(ndcgAt(['x', 'a', 'y', 'b'], rel, 10) - expected) < 1e-12);
  assert.equal(ndcgAt(['x', 'y'], rel, 10), 0);
  // Beyond the cutoff does not count.
  assert.equal(ndcgAt([...'cdefghijkl'.split(''), 'a'], rel, 10), 0);
});

test('recall@k counts relevant documents within the first k', () => {
  const rel = new Set(['a', 'b', 'c', 'd']);
  assert.equal(recallAt(['a', 'x', 'b'], rel, 2), 0.25);
  assert.equal(recallAt(['a', 'x', 'b'], rel, 100), 0.5);
});

test('documents rank at their best chunk; unmapped chunks are skipped', () => {
  assert.deepEqual(dedupeDocs(['a', 'b', 'a', undefined, 'c', 'b'], 10), ['a', 'b', 'c']);
  assert.deepEqual(dedupeDocs(['a', 'b', 'c'], 2), ['a', 'b']);
});

test('scoreRun averages over every query, missing runs scoring 0', () => {
  const queries = [
    { id: 'q1', relevant: new Set(['a']) },
    { id: 'q2', relevant: new Set(['b']) },
  ];
  const s = scoreRun(new Map([['q1', ['a']]]), queries, 100);
  assert.equal(s.ndcg10, 0.5);
  assert.equal(s.recall, 0.5);
  assert.equal(s.queries, 2);
});

test('graded nDCG@10 uses the grades as gains (trec_eval), the ideal from the sorted grades', () => {
  const grades = new Map([
    ['a', 2],
    ['b', 1],
  ]);
  assert.equal(gradedNdcgAt(['a', 'b'], grades, 10), 1);
  // b first, then a: (1 + 2/log2 3) / (2 + 1/log2 3); binary would call it perfect.
  const expected = (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3));
  assert.ok(Math.abs(gradedNdcgAt(['b', 'a'], grades, 10) - expected) < 1e-12);
  assert.equal(ndcgAt(['b', 'a'], new Set(grades.keys()), 10), 1);
  const s = scoreRun(new Map([['q', ['b', 'a']]]), [{ id: 'q', relevant: new Set(grades.keys()), grades }], 100);
  assert.ok(Math.abs(s.ndcg10Graded! - expected) < 1e-12);
});
