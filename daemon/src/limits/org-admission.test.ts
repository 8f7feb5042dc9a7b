import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors.js';
import { defaultSearchConcurrency, OrgAdmission } from './org-admission.js';

/** A piece of work that runs until `finish()` is called. */
function gate() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return { work: () => done, finish };
}

describe('OrgAdmission', () => {
  it('defaults to a quarter of the pool, at least one', () => {
    assert.deepEqual([1, 4, 7, 10, 40].map(defaultSearchConcurrency), [1, 1, 1, 2, 10]);
  });

  it('lets an organization alone use `alone` slots, and holds it to `perOrg` once another one searches', async () => {
    const adm = new OrgAdmission({ perOrg: 1, alone: 3, contendedMs: 60_000, queue: 5, waitMs: 60_000 });
    const gates = [gate(), gate(), gate()];
    const running = gates.map((g) => adm.run('a', g.work));
    assert.deepEqual(adm.load('a'), { active: 3, waiting: 0 }, 'alone: three at once');
    await adm.run('b', async () => {});
    const held = gate();
    const fourth = adm.run('a', held.work);
    assert.deepEqual(adm.load('a'), { active: 3, waiting: 1 }, 'shared: a waits');
    for (const g of gates) g.finish();
    await Promise.all(running);
    assert.deepEqual(adm.load('a'), { active: 1, waiting: 0 }, 'the waiting one took a slot');
    const fifth = gate();
    const later = adm.run('a', fifth.work);
    assert.deepEqual(adm.load('a'), { active: 1, waiting: 1 }, 'b searched within contendedMs: a runs one at a time');
    held.finish();
    fifth.finish();
    await Promise.all([fourth, later]);
    assert.deepEqual(adm.load('a'), { active: 0, waiting: 0 });
  });

  it('admits waiting requests in arrival order as slots free, per organization', async () => {
    const adm = new OrgAdmission({ perOrg: 1, alone: 1, contendedMs: 1000, queue: 5, waitMs: 60_000 });
    const order: string[] = [];
    const first = gate();
    const running = adm.run('a', first.work);
    const waiting = ['x', 'y', 'z'].map((n) => adm.run('a', async () => void order.push(n)));
    // Another organization is not behind organization a.
    await adm.run('b', async () => void order.push('b'));
    assert.deepEqual(adm.load('a'), { active: 1, waiting: 3 });
    first.finish();
    await Promise.all([running, ...waiting]);
    assert.deepEqual(order, ['b', 'x', 'y', 'z']);
    assert.deepEqual(adm.load('a'), { active: 0, waiting: 0 });
  });

  it('refuses at once past the queue, and after waitMs in it, with 429 and Retry-After', async () => {
    const adm = new OrgAdmission({ perOrg: 1, alone: 1, contendedMs: 1000, queue: 1, waitMs: 50 });
    const first = gate();
    const running = adm.run('a', first.work);
    const queued = adm.run('a', async () => 'late');
    const over = await adm.run('a', async () => 'never').catch((e: unknown) => e);
    assert.ok(over instanceof AppError);
    assert.equal(over.status, 429);
    assert.equal(over.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(over.headers?.['Retry-After'], '1');
    assert.match(over.message, /SEARCH_QUEUE_PER_ORG/);
    const timedOut = await queued.catch((e: unknown) => e);
    assert.ok(timedOut instanceof AppError);
    assert.match(timedOut.message, /within 50 ms/);
    assert.deepEqual(adm.load('a'), { active: 1, waiting: 0 });
    first.finish();
    await running;
    assert.deepEqual(adm.load('a'), { active: 0, waiting: 0 });
  });

  it('frees the slot when the work fails, and when a stream ends early', async () => {
    const adm = new OrgAdmission({ perOrg: 1, alone: 1, contendedMs: 1000, queue: 0, waitMs: 1000 });
    await assert.rejects(
      adm.run('a', async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.deepEqual(adm.load('a'), { active: 0, waiting: 0 });
    const rows = adm.stream('a', async function* () {
      yield 1;
      yield 2;
    });
    assert.equal((await rows.next()).value, 1);
    assert.deepEqual(adm.load('a'), { active: 1, waiting: 0 });
    await rows.return(undefined);
    assert.deepEqual(adm.load('a'), { active: 0, waiting: 0 });
  });
});
