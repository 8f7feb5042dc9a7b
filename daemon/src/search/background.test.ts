import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backgroundStats } from './background.js';

/** The definition, computed the plain way: cosine to each sample vector, their median, 1.4826 × MAD. */
function oracle(query: number[], sample: Float32Array[]) {
  const qn = Math.sqrt(query.reduce((s, x) => s + x * x, 0)) || 1;
  const sims = sample.map((v) => v.reduce((s, x, i) => s + x * query[i]!, 0) / qn);
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const med = median(sims);
  return { median: med, spread: Math.max(1e-3, 1.4826 * median(sims.map((s) => Math.abs(s - med)))) };
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

test('backgroundStats agrees with the plain computation for any dimension and sample size', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const r = rng(seed);
    const dim = 1 + Math.floor((r() + 0.5) * 70);
    const n = 1 + Math.floor((r() + 0.5) * 40);
    const query = Array.from({ length: dim }, r);
    const sample = Array.from({ length: n }, () => Float32Array.from({ length: dim }, r));
    const got = backgroundStats(query, sample);
    const want = oracle(query, sample);
    assert.ok(Math.abs(got.median - want.median) < 1e-12, `median, dim ${dim}, n ${n}: ${got.median} vs ${want.median}`);
    assert.ok(Math.abs(got.spread - want.spread) < 1e-12, `spread, dim ${dim}, n ${n}: ${got.spread} vs ${want.spread}`);
  }
});

test('backgroundStats: a zero query and identical samples give median 0 and the minimum spread', () => {
  const sample = Array.from({ length: 8 }, () => Float32Array.from([1, 2, 3, 4, 5]));
  assert.deepEqual(backgroundStats([0, 0, 0, 0, 0], sample), { median: 0, spread: 1e-3 });
});
