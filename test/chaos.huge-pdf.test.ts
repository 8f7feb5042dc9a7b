import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { type ChaosRig, settleRows, startChaosRig, uploadBatch, watchMemory } from './helpers/chaos.js';
import { manyPagePdf } from './helpers/hostile-files.js';

// PDFs that cost too much: one with more pages than allowed (refused from its page count, before
// any page is parsed), one under the page limit that takes longer than the time limit (its thread
// is stopped and replaced). Ordinary documents in the same batch index.
const MAX_PAGES = 5000;
const TIMEOUT_MS = 5000;
const RSS_GROWTH_BOUND_MB = 450;

describe('chaos: huge PDFs', () => {
  let rig: ChaosRig;
  before(async () => {
    rig = await startChaosRig('chaos_pdf', {
      EXTRACT_MAX_PDF_PAGES: String(MAX_PAGES),
      EXTRACT_TIMEOUT_MS: String(TIMEOUT_MS),
      WORKER_CONCURRENCY: '2',
      PROCESS_MAX_ATTEMPTS: '5',
    });
  });
  after(async () => rig?.close());

  it('a 20,000-page PDF and a too-slow PDF fail permanently; the rest of the batch indexes; memory stays bounded', async () => {
    const warm = await uploadBatch(rig, [
      { name: 'warm-1.pdf', data: manyPagePdf(2), type: 'application/pdf' },
      { name: 'warm-2.pdf', data: manyPagePdf(3), type: 'application/pdf' },
    ]);
    await settleRows(rig, [...warm.values()]);

    const huge = manyPagePdf(20_000); // ~4 MB
    // Under the page limit; at several ms a page it needs many times TIMEOUT_MS.
    const slow = manyPagePdf(4900);
    const memory = watchMemory();
    const ids = await uploadBatch(rig, [
      { name: 'huge.pdf', data: huge, type: 'application/pdf' },
      { name: 'slow.pdf', data: slow, type: 'application/pdf' },
      { name: 'sample.pdf', data: await readFile(samplePath('sample.pdf')), type: 'application/pdf' },
      { name: 'short.pdf', data: manyPagePdf(5, (i) => `Quillmarten page ${i}`), type: 'application/pdf' },
      { name: 'note.txt', data: 'A short note indexed beside the huge PDFs.', type: 'text/plain' },
    ]);
    const rows = await settleRows(rig, [...ids.values()]);
    const { growthMb, peakMb } = memory.stop();
    const row = (name: string) => rows.get(ids.get(name)!)!;

    assert.equal(row('huge.pdf').status, 'failed');
    assert.equal(row('huge.pdf').error_message, 'The PDF has 20,000 pages; the limit is 5,000 (EXTRACT_MAX_PDF_PAGES).');
    assert.equal(row('slow.pdf').status, 'failed');
    assert.equal(row('slow.pdf').error_message, 'Extraction took longer than 5 s; the limit is 5 s (EXTRACT_TIMEOUT_MS).');
    for (const name of ['huge.pdf', 'slow.pdf']) assert.equal(row(name).attempts, 1, `${name} failed at once, not after retries`);

    for (const name of ['sample.pdf', 'short.pdf', 'note.txt']) {
      assert.equal(row(name).status, 'indexed', `${name}: ${row(name).error_message}`);
      assert.equal(row(name).attempts, 1, `${name} was not failed or retried because of the huge PDFs`);
    }
    assert.equal(row('short.pdf').chunks_count, 5, 'one chunk per page');
    assert.ok(growthMb < RSS_GROWTH_BOUND_MB, `RSS grew by ${growthMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)} MB)`);

    const search = await rig.req('POST', '/api/v1/search/', { key: rig.tenant.key, json: { query: 'Quillmarten page 3' } });
    assert.equal(search.status, 200);
    assert.ok(
      search.body.results.some((r: { document_uuid?: string; document?: { uuid: string } }) =>
        JSON.stringify(r).includes(ids.get('short.pdf')!),
      ),
    );
    process.stderr.write(`[chaos.huge-pdf] RSS baseline ${memory.baselineMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB\n`);
  });
});
