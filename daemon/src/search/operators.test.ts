import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operatorFilter, operatorParts, plainWords, withoutOperators } from './operators.js';

test('plain queries have no filter', () => {
  assert.equal(operatorFilter('stem cells in mice'), '');
  assert.equal(operatorFilter('covid-19 IL-6 T-cells'), '');
  assert.equal(operatorFilter(''), '');
});

test('phrases and negations become the filter', () => {
  assert.equal(operatorFilter('"gene expression" in -mice stem cells'), '"gene expression" -mice');
  assert.equal(operatorFilter('-"mouse model" histone'), '-"mouse model"');
  assert.equal(operatorFilter('"unterminated phrase'), '"unterminated phrase');
});

test('operators without words are dropped', () => {
  assert.equal(operatorFilter('- "" foo'), '');
  assert.equal(operatorFilter('"  " -'), '');
});

test('the plain words are what is left without the operators', () => {
  assert.equal(plainWords('"gene expression" in -mice stem cells').replace(/\s+/g, ' ').trim(), 'in stem cells');
  assert.equal(plainWords('covid-19 IL-6 -"mouse model"').trim(), 'covid-19 IL-6');
});

test('the operators as written, and the query without them', () => {
  const q = '"gene expression" in -mice stem -"mouse model" cells "unterminated';
  assert.deepEqual(operatorParts(q), { required: ['gene expression', 'unterminated'], excluded: ['mice', 'mouse model'] });
  assert.equal(withoutOperators(q), 'gene expression in stem cells unterminated');
  assert.deepEqual(operatorParts('covid-19 IL-6 - "" foo'), { required: [], excluded: [] });
  assert.equal(withoutOperators('-mice'), '');
});
