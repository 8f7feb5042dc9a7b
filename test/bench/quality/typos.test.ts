import assert from 'node:assert/strict';
import { test } from 'node:test';
import { misspellQueries, typoShare } from './typos.js';

const q = (id: string, text: string, relevant: string) => ({ id, text, relevant: new Set([relevant]), grades: new Map([[relevant, 1]]) });

test('a misspelled query touches one word of five letters or more, and queries without one are left out', () => {
  const typos = misspellQueries([q('a', 'vitamin intake', 'd1'), q('b', 'okra', 'd2')]);
  assert.deepEqual(
    typos.map((t) => t.id),
    ['a'],
  );
  assert.notEqual(typos[0]!.text, 'vitamin intake');
});

test('the clean figure a misspelled set is compared with is over the same queries', () => {
  const clean = [q('a', 'vitamin intake', 'd1'), q('b', 'okra', 'd2')];
  const typos = misspellQueries(clean);
  // Clean: a finds its document, b (no word to misspell) finds nothing. Misspelled: a finds it at rank 2.
  const cleanRuns = new Map([
    ['a', ['d1']],
    ['b', []],
  ]);
  const typoRuns = new Map([['a', ['x', 'd1']]]);
  const share = typoShare(cleanRuns, typoRuns, clean, typos);
  assert.equal(share.clean, 1);
  assert.ok(Math.abs(share.typos - 1 / Math.log2(3)) < 1e-12);
  assert.ok(Math.abs(share.ratio - 1 / Math.log2(3)) < 1e-12);
});
