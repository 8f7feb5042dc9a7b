// The default PostgreSQL pool follows the machine: 2 connections per core, between 4 and 10. On 2
// cores, 10 connections running searches at once cost about 8 % more CPU per search than 4
// (bench:search kept.ts, docs/performance.md): the backends take turns on the cores instead of queueing in the
// daemon. An explicit DB_POOL_MAX always wins.
import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { defaultPoolMax, loadConfig } from '../daemon/src/config.js';

describe('config: default DB_POOL_MAX', () => {
  it('is two connections per core, at least 4 and at most 10', () => {
    assert.equal(defaultPoolMax(1), 4);
    assert.equal(defaultPoolMax(2), 4);
    assert.equal(defaultPoolMax(3), 6);
    assert.equal(defaultPoolMax(4), 8);
    assert.equal(defaultPoolMax(5), 10);
    assert.equal(defaultPoolMax(64), 10);
  });

  it("is this machine's when unset, and DB_POOL_MAX overrides it", () => {
    assert.equal(loadConfig({}).DB_POOL_MAX, defaultPoolMax(os.availableParallelism()));
    assert.equal(loadConfig({ DB_POOL_MAX: '' }).DB_POOL_MAX, defaultPoolMax(os.availableParallelism()));
    assert.equal(loadConfig({ DB_POOL_MAX: '17' }).DB_POOL_MAX, 17);
  });

  it('refuses a pool size that is not a positive integer', () => {
    assert.throws(() => loadConfig({ DB_POOL_MAX: '0' }), /DB_POOL_MAX/);
    assert.throws(() => loadConfig({ DB_POOL_MAX: 'many' }), /DB_POOL_MAX/);
  });
});
