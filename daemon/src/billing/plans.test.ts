import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chargesFor, cycleAt, nextCycle, overageCents, PLANS } from './plans.js';

const d = (s: string) => new Date(s);
const iso = (c: { start: Date; end: Date }) => [c.start.toISOString(), c.end.toISOString()];

describe('billing cycles', () => {
  it('start at 00:00 UTC on the anchor day of the month', () => {
    assert.deepEqual(iso(cycleAt(d('2026-01-15T13:45:00Z'), d('2026-03-20T08:00:00Z'))), [
      '2026-03-15T00:00:00.000Z',
      '2026-04-15T00:00:00.000Z',
    ]);
    assert.deepEqual(iso(cycleAt(d('2026-01-15T13:45:00Z'), d('2026-03-14T23:59:59Z'))), [
      '2026-02-15T00:00:00.000Z',
      '2026-03-15T00:00:00.000Z',
    ]);
    assert.deepEqual(iso(cycleAt(d('2026-01-15T13:45:00Z'), d('2026-03-15T00:00:00Z'))), [
      '2026-03-15T00:00:00.000Z',
      '2026-04-15T00:00:00.000Z',
    ]);
    // The anchor instant itself lies in the first cycle, which starts at the anchor day's midnight.
    assert.deepEqual(iso(cycleAt(d('2026-01-15T13:45:00Z'), d('2026-01-15T13:45:00Z'))), [
      '2026-01-15T00:00:00.000Z',
      '2026-02-15T00:00:00.000Z',
    ]);
  });

  it('clamp the 29th–31st to short months and return to the anchor day after', () => {
    const anchor = d('2026-01-31T10:00:00Z');
    assert.deepEqual(iso(cycleAt(anchor, d('2026-02-10T00:00:00Z'))), ['2026-01-31T00:00:00.000Z', '2026-02-28T00:00:00.000Z']);
    assert.deepEqual(iso(cycleAt(anchor, d('2026-03-01T00:00:00Z'))), ['2026-02-28T00:00:00.000Z', '2026-03-31T00:00:00.000Z']);
    assert.deepEqual(iso(cycleAt(d('2027-12-29T00:00:00Z'), d('2028-02-29T12:00:00Z'))), [
      '2028-02-29T00:00:00.000Z',
      '2028-03-29T00:00:00.000Z',
    ]);
  });

  it('tile time without gaps across years', () => {
    const anchor = d('2025-08-31T05:00:00Z');
    let c = cycleAt(anchor, anchor);
    for (let i = 0; i < 30; i++) {
      const n = nextCycle(anchor, c);
      assert.equal(n.start.getTime(), c.end.getTime());
      assert.ok(n.end > n.start);
      assert.equal(n.start.getUTCHours() + n.start.getUTCMinutes(), 0);
      c = n;
    }
    assert.equal(c.start.toISOString(), '2028-02-29T00:00:00.000Z');
  });

  it('handle times before the anchor', () => {
    assert.deepEqual(iso(cycleAt(d('2026-05-10T00:00:00Z'), d('2026-04-01T00:00:00Z'))), [
      '2026-03-10T00:00:00.000Z',
      '2026-04-10T00:00:00.000Z',
    ]);
  });
});

describe('charges', () => {
  it('overage in integer cents, rounded half up from exact millicents', () => {
    assert.equal(overageCents(0, 200), 0);
    assert.equal(overageCents(2, 200), 0); // 0.4 ¢
    assert.equal(overageCents(3, 200), 1); // 0.6 ¢
    assert.equal(overageCents(5, 100), 1); // 0.5 ¢ → up
    assert.equal(overageCents(4, 100), 0);
    assert.equal(overageCents(507, 200), 101); // 101.4 ¢
    assert.equal(overageCents(1_000_000_000, 200), 200_000_000);
    assert.throws(() => overageCents(1.5, 200), RangeError);
  });

  it('plan fee plus overage beyond the included searches; Free never has overage', () => {
    assert.deepEqual(chargesFor(PLANS.starter, 10_507), {
      planFeeCents: 2900,
      includedQueries: 10_000,
      usedQueries: 10_507,
      overageQueries: 507,
      overageRateMillicents: 200,
      overageCents: 101,
      totalCents: 3001,
    });
    assert.equal(chargesFor(PLANS.pro, 100_005).totalCents, 9901);
    assert.equal(chargesFor(PLANS.pro, 99_999).overageQueries, 0);
    assert.deepEqual(chargesFor(PLANS.free, 5_000), {
      planFeeCents: 0,
      includedQueries: 1000,
      usedQueries: 5000,
      overageQueries: 0,
      overageRateMillicents: null,
      overageCents: 0,
      totalCents: 0,
    });
  });
});
