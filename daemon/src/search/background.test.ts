import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backgroundStats, pairStats, queryBackground } from './background.js';

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

test('queryBackground measures a query once per sample, and again against another sample', () => {
  const r = rng(7);
  const query = Array.from({ length: 16 }, r);
  const a = Array.from({ length: 20 }, () => Float32Array.from({ length: 16 }, r));
  const b = Array.from({ length: 20 }, () => Float32Array.from({ length: 16 }, r));
  const first = queryBackground(query, a);
  assert.deepEqual(first, backgroundStats(query, a));
  assert.equal(queryBackground(query, a), first, 'the same measurement, not a new one');
  assert.deepEqual(queryBackground(query, b), backgroundStats(query, b));
  assert.deepEqual(queryBackground([...query], a), first, 'an equal query measures alike');
});

test('pairStats: every sampled vector takes part in the pairs, not only the first ones', () => {
  const r = rng(7);
  // 128 identical vectors, then 384 random ones: the pairs must see the random ones too.
  const same = Float32Array.from({ length: 16 }, () => 1 / 4);
  const sample = [...Array.from({ length: 128 }, () => same), ...Array.from({ length: 384 }, () => Float32Array.from({ length: 16 }, r))];
  const got = pairStats(sample);
  assert.ok(got.median < 0.9, `median ${got.median}: the random vectors are paired`);
});

test('pairStats over a small sample is the median and MAD of every pair', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const r = rng(seed);
    const n = 2 + Math.floor((r() + 0.5) * 60);
    const sample = Array.from({ length: n }, () => {
      const v = Float32Array.from({ length: 8 }, r);
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
    const sims: number[] = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) sims.push(sample[i]!.reduce((s, x, t) => s + x * sample[j]![t]!, 0));
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const m = s.length >> 1;
      return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
    };
    const med = median(sims);
    const got = pairStats(sample);
    assert.ok(Math.abs(got.median - med) < 1e-9, `n ${n}`);
    assert.ok(Math.abs(got.spread - Math.max(1e-3, 1.4826 * median(sims.map((s) => Math.abs(s - med))))) < 1e-9, `n ${n}`);
  }
});
