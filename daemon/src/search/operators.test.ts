import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operatorFilter, plainWords } from './operators.js';

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
