import assert from 'node:assert/strict';
import { test } from 'node:test';
import { worthCompacting } from './fold.js';

const MB = 2 ** 20;

test('a fifth of the heap free is worth a rewrite, as before', () => {
  assert.equal(worthCompacting({ heap: 10 * MB, indexes: 4 * MB }, { heap: 7.9 * MB, indexes: 4 * MB }, MB), true);
});

test('half-empty indexes over a heap with little free space are worth a rewrite', () => {
  // Shaped like SciFact after the last fold of a slow upload (heap 1,583 B per chunk, indexes 1,132),
  // with an illustrative 13 % of the heap free and indexes twice their built size.
  const chunks = 5693;
  assert.equal(worthCompacting({ heap: 1583 * chunks, indexes: 1132 * chunks }, { heap: 1380 * chunks, indexes: 600 * chunks }, MB), true);
});

test('indexes a quarter free are left alone', () => {
  assert.equal(worthCompacting({ heap: 10 * MB, indexes: 8 * MB }, { heap: 9.5 * MB, indexes: 6 * MB }, MB), false);
});

test('a compact table is left alone, and so is free space under the minimum', () => {
  assert.equal(worthCompacting({ heap: 10 * MB, indexes: 4 * MB }, { heap: 9.5 * MB, indexes: 3.9 * MB }, MB), false);
  assert.equal(worthCompacting({ heap: 2 * MB, indexes: 2 * MB }, { heap: 1 * MB, indexes: 1 * MB }, 4 * MB), false);
});
