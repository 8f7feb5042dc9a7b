import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAIR_RANK_CAP, ranksByOrganization } from './processing-queue.js';

test('reembed ranks: the n-th document of each organization ranks n, so organizations interleave', () => {
  const docs = ['a', 'a', 'b', 'a', 'c', 'b'].map((organization_id) => ({ organization_id }));
  assert.deepEqual(ranksByOrganization(docs), [0, 1, 0, 2, 0, 1]);
});

test('ranks stop at the cap: deeper backlogs are first come, first served among themselves', () => {
  const docs = Array.from({ length: FAIR_RANK_CAP + 5 }, () => ({ organization_id: 'big' }));
  const ranks = ranksByOrganization(docs);
  assert.equal(ranks[FAIR_RANK_CAP - 1], FAIR_RANK_CAP - 1);
  assert.deepEqual(ranks.slice(FAIR_RANK_CAP), Array(5).fill(FAIR_RANK_CAP));
  assert.ok(FAIR_RANK_CAP <= 32_767, 'graphile-worker priorities are smallint');
});
