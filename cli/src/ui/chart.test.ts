import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucket, dailyChart, hbar } from './chart.js';

test('bars scale to the largest value in eighths of a cell', () => {
  assert.equal(hbar(10, 10, 4), '████');
  assert.equal(hbar(5, 10, 4), '██');
  assert.equal(hbar(1, 10, 4), '▍');
  assert.equal(hbar(0, 10, 4), '');
});

test('a daily chart has one row per day with counts and errors', () => {
  const lines = dailyChart(
    [
      { date: '2026-11-01', requests: 100, errors: 0 },
      { date: '2026-11-02', requests: 50, errors: 3 },
    ],
    10,
  );
  assert.deepEqual(lines, ['2026-11-01 100 ██████████', '2026-11-02  50 █████ 3 err']);
});

test('90 days become weekly rows', () => {
  const days = Array.from({ length: 90 }, (_, i) => ({ date: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(), requests: 1, errors: 0 }));
  const rows = bucket(days);
  assert.equal(rows.length, 13);
  assert.equal(rows[0]!.requests, 7);
  assert.equal(rows[12]!.requests, 6);
});
