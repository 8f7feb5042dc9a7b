import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ChaosRig, settleRows, startChaosRig, uploadBatch, watchMemory } from './helpers/chaos-extract.js';
import { deepJson } from './helpers/hostile-files.js';

// Text that costs too much: more characters than EXTRACT_MAX_TEXT_CHARS (as a file and inline),
// JSON nested deeper than any walk should go, and a "word" of punctuation that used to send the
// segmenter into quadratic backtracking. Ordinary documents in the same batch index.
const MAX_TEXT = 1_000_000;
const RSS_GROWTH_BOUND_MB = 450;

describe('chaos: giant text', () => {
  let rig: ChaosRig;
  before(async () => {
    rig = await startChaosRig('chaos_text', {
      EXTRACT_MAX_TEXT_CHARS: String(MAX_TEXT),
      WORKER_CONCURRENCY: '2',
      PROCESS_MAX_ATTEMPTS: '5',
    });
  });
  after(async () => rig?.close());

  it('over-long text and deep JSON fail permanently; a punctuation run indexes quickly; the batch indexes', async () => {
    const memory = watchMemory();
    const giantWord = 'x'.repeat(3 * 1024 * 1024);
    const ids = await uploadBatch(rig, [
      { name: 'giant-word.txt', data: giantWord, type: 'text/plain' },
      { name: 'deep.json', data: deepJson(100_000), type: 'application/json' },
      // 512 KiB of "." with no space: ~10 minutes of regex backtracking before the fix.
      { name: 'dots.txt', data: `Dotted line ahead ${'.'.repeat(512 * 1024)}`, type: 'text/plain' },
      { name: 'good.txt', data: 'The ferryman counts the copper coins twice.', type: 'text/plain' },
      {
        name: 'good.json',
        data: JSON.stringify({ title: 'Config', nested: { depth: { ok: 'shallow enough' } } }),
        type: 'application/json',
      },
    ]);
    const inline = await rig.req('POST', `/api/v1/collections/${rig.collection}/documents/`, {
      key: rig.tenant.key,
      json: { source_type: 'text', title: 'Inline giant', content: 'lorem ipsum '.repeat(100_000) },
    });
    assert.equal(inline.status, 201, inline.text);
    const all = [...ids.values(), inline.body.uuid as string];
    const rows = await settleRows(rig, all);
    const { growthMb, peakMb } = memory.stop();
    const row = (name: string) => rows.get(ids.get(name)!)!;

    assert.equal(row('giant-word.txt').status, 'failed');
    assert.equal(
      row('giant-word.txt').error_message,
      "The document's text has 3,145,728 characters; the limit is 1,000,000 (EXTRACT_MAX_TEXT_CHARS).",
    );
    const inlineRow = rows.get(inline.body.uuid)!;
    assert.equal(inlineRow.status, 'failed');
    assert.equal(inlineRow.error_message, "The document's text has 1,199,999 characters; the limit is 1,000,000 (EXTRACT_MAX_TEXT_CHARS).");
    assert.equal(row('deep.json').status, 'failed');
    assert.equal(row('deep.json').error_message, 'The JSON file is nested more than 1,000 levels deep and cannot be indexed.');
    for (const r of [row('giant-word.txt'), inlineRow, row('deep.json')]) assert.equal(r.attempts, 1, 'permanent: failed at once');

    for (const name of ['dots.txt', 'good.txt', 'good.json']) {
      assert.equal(row(name).status, 'indexed', `${name}: ${row(name).error_message}`);
      assert.equal(row(name).attempts, 1);
    }
    assert.ok(row('dots.txt').chunks_count >= 256, 'the punctuation run is cut into budget-sized chunks');
    assert.ok(growthMb < RSS_GROWTH_BOUND_MB, `RSS grew by ${growthMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)} MB)`);
    process.stderr.write(`[chaos.giant-text] RSS baseline ${memory.baselineMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB\n`);
  });
});
