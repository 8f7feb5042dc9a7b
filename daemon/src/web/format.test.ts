import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { niceScale } from './chart.js';
import { safeNext } from './context.js';
import { compact, money, ms, percent, ratePerQuery, relative } from './format.js';

describe('web helpers', () => {
  it('scales chart axes to round ticks, at most four steps', () => {
    const cases: [number, number, number][] = [
      [0, 4, 1],
      [3, 4, 1],
      [7, 8, 2],
      [11, 15, 5],
      [165, 200, 50],
      [230, 300, 100],
      [999, 1000, 500],
      [12_345, 15_000, 5000],
    ];
    for (const [n, max, step] of cases) {
      const s = niceScale(n);
      assert.deepEqual(s, { max, step }, String(n));
      assert.ok(s.max >= n && s.max / s.step <= 5 && Number.isInteger(s.step));
    }
  });

  it('only follows same-site /app/ paths after sign-in', () => {
    assert.equal(safeNext('/app/keys?x=1'), '/app/keys?x=1');
    for (const bad of [
      undefined,
      '',
      '/api/v1/keys',
      '//evil.example/app/',
      'https://evil.example/app/',
      '/app/\\evil',
      '/app/\r\nSet-Cookie: x',
    ]) {
      assert.equal(safeNext(bad), '/app/', String(bad));
    }
  });

  it('formats figures for display', () => {
    assert.equal(compact(1_234_567), '1.2M');
    assert.equal(compact(12_500), '12.5k');
    assert.equal(ms(12.34), '12.3 ms');
    assert.equal(ms(1500), '1.5 s');
    assert.equal(percent(1, 3), '33.3%');
    assert.equal(percent(0, 0), '0%');
    assert.equal(money(2900), '$29.00');
    assert.equal(ratePerQuery(200), '$0.002 per query');
    assert.equal(ratePerQuery(null), 'no overage');
    const now = new Date('2026-01-10T00:00:00Z');
    assert.equal(relative(new Date('2026-01-09T23:58:00Z'), now), '2 min ago');
    assert.equal(relative(new Date('2026-02-09T00:00:00Z'), now), 'in 30 days');
    assert.equal(relative(null, now), 'never');
  });
});
