import { test } from 'node:test';
import assert from 'node:assert/strict';
import { segmentedNeedles } from './highlights.js';

test('segmented needles: the query’s runs and their words, never an excluded one', () => {
  const needles = segmentedNeedles('服务业 -农业 "墨尔本" -"东京都"');
  for (const kept of ['服务业', '墨尔本']) assert.ok(needles.includes(kept), kept);
  for (const dropped of ['农业', '东京都', '东京']) assert.ok(!needles.includes(dropped), dropped);
  assert.deepEqual(segmentedNeedles('-农业 plain words'), []);
});
