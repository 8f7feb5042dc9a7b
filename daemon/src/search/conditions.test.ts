import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFilter } from '../filters/parse.js';
import { HEAVY_FILTER_VALUES, heavyFilter } from './conditions.js';

test('a filter is heavy from HEAVY_FILTER_VALUES values on, counted through and, or and not', () => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
  assert.equal(heavyFilter(undefined), false);
  assert.equal(heavyFilter(parseFilter({ dept: 'legal', year: { gte: 2020 } })), false);
  assert.equal(heavyFilter(parseFilter({ code: { in: list(HEAVY_FILTER_VALUES - 1) } })), false);
  assert.equal(heavyFilter(parseFilter({ code: { in: list(HEAVY_FILTER_VALUES) } })), true);
  const half = HEAVY_FILTER_VALUES / 2;
  assert.equal(heavyFilter(parseFilter({ not: { or: [{ a: { in: list(half) } }, { b: { nin: list(half) } }] } })), true);
  assert.equal(heavyFilter(parseFilter({ and: [{ a: { in: list(half) } }, { b: { in: list(half - 1) } }] })), false);
});
