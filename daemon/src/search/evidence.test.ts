import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Background } from './background.js';
import { judgeTopic, onTopic, TOPIC } from './evidence.js';
import type { Candidate } from './fusion.js';

// A scope whose chunks are 0.6 similar to one another (spread 0.1): unit vectors sharing a common
// direction e0 at cos 0.6, each with its own orthogonal part.
const DIM = 64;
function unitAt(cos: number, own: number): Float32Array {
  const v = new Float32Array(DIM);
  v[0] = cos;
  v[own] = Math.sqrt(1 - cos * cos);
  return v;
}
const sample = Array.from({ length: 40 }, (_, i) => unitAt(Math.sqrt(0.6), 1 + i));
const bg: Background = { chunks: 40, sample, pairs: { median: 0.6, spread: 0.1 }, checkedAt: Date.now() };
const text = (coverage: number): Candidate[] => [{ chunkId: 'c', score: 5, rank: 1, coverage }] as Candidate[];
const vector = (score: number): Candidate[] => [{ chunkId: 'v', score, rank: 1 }] as Candidate[];
/** A query whose similarity to every sampled chunk is `median` (its part along e0). */
const queryAt = (median: number) => {
  const q = Array.from({ length: DIM }, () => 0);
  q[0] = median / Math.sqrt(0.6);
  q[DIM - 1] = Math.sqrt(Math.max(0, 1 - q[0] * q[0]));
  return q;
};

describe('search evidence: whether a hybrid query is on topic', () => {
  it('a chunk near in meaning is enough', () => {
    // At the threshold (1e-9 above it, clear of rounding in 0.6 + 0.1 × nearness), and just below it.
    const t = judgeTopic([], vector(0.6 + 0.1 * TOPIC.nearness + 1e-9), bg, queryAt(0.0));
    assert.equal(t.on, true);
    assert.equal(t.basis, 'nearness');
    assert.equal(judgeTopic([], vector(0.6 + 0.1 * TOPIC.nearness - 1e-3), bg, queryAt(0.0)).on, false);
  });

  it('partial coverage counts only for a query in the documents’ domain', () => {
    const far = vector(0.2);
    // Domain −2 spreads (median similarity 0.4): in the domain, partial coverage is evidence.
    const inDomain = judgeTopic(text(TOPIC.coverage), far, bg, queryAt(0.4));
    assert.equal(inDomain.on, true);
    assert.equal(inDomain.basis, 'coverage');
    assert.ok(Math.abs(inDomain.domain! - -2) < 1e-6, String(inDomain.domain));
    // Domain −5 spreads (median similarity 0.1): the same coverage is a lexical accident.
    const outside = judgeTopic(text(TOPIC.coverage), far, bg, queryAt(0.1));
    assert.equal(outside.on, false);
    assert.equal(outside.basis, 'off_topic');
    assert.ok(outside.domain! < TOPIC.domain);
  });

  it('a chunk holding (nearly) all of the query’s weight is enough outside the domain', () => {
    const t = judgeTopic(text(TOPIC.fullCoverage), vector(0.2), bg, queryAt(0.1));
    assert.equal(t.on, true);
    assert.equal(t.basis, 'coverage');
  });

  it('the vector channel cannot judge without a query vector or with random-like vectors', () => {
    assert.equal(judgeTopic(text(0.1), [], bg, undefined).basis, 'no_vector');
    const random = { ...bg, pairs: { median: 0.01, spread: 0.05 } };
    const t = judgeTopic(text(0.1), vector(0.1), random, queryAt(0.0));
    assert.deepEqual([t.on, t.basis, t.domain], [true, 'no_structure', null]);
  });

  it('onTopic applies the thresholds it is given', () => {
    const m = { coverage: 0.5, nearness: -2, domain: -3 };
    assert.equal(onTopic(m).on, true);
    assert.equal(onTopic(m, { ...TOPIC, domain: -2.5 }).on, false);
    assert.equal(onTopic(m, { ...TOPIC, coverage: 0.6 }).on, false);
    assert.equal(onTopic({ ...m, domain: -9 }, { ...TOPIC, fullCoverage: 0.5 }).on, true);
  });
});
