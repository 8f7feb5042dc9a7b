import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { type ChaosRig, type FinalRow, settleRows, startChaosRig, uploadBatch, watchMemory } from './helpers/chaos-extract.js';
import { manyPagePdf } from './helpers/hostile-files.js';

// PDFs that cost too much: one with more pages than allowed (refused from its page count, before
// any page's text is read), one under the page limit that takes longer than the time limit (its
// thread is stopped and replaced). Ordinary documents in the same batch index. Two daemons, one
// per limit: counting 20,000 pages takes pdf.js a few seconds, which must not race a low time limit.
const RSS_GROWTH_BOUND_MB = 450;

async function warmUp(rig: ChaosRig): Promise<void> {
  // Both extraction threads started, so the memory baseline includes their fixed cost.
  const warm = await uploadBatch(rig, [
    { name: 'warm-1.pdf', data: manyPagePdf(2), type: 'application/pdf' },
    { name: 'warm-2.pdf', data: manyPagePdf(3), type: 'application/pdf' },
  ]);
  await settleRows(rig, [...warm.values()]);
}

const ordinary = async () => [
  { name: 'sample.pdf', data: await readFile(samplePath('sample.pdf')), type: 'application/pdf' },
  { name: 'short.pdf', data: manyPagePdf(5, (i) => `Quillmarten page ${i}`), type: 'application/pdf' },
  { name: 'note.txt', data: 'A short note indexed beside the huge PDFs.', type: 'text/plain' },
];

function assertOrdinaryIndexed(rows: Map<string, FinalRow>, ids: Map<string, string>): void {
  for (const name of ['sample.pdf', 'short.pdf', 'note.txt']) {
    const row = rows.get(ids.get(name)!)!;
    assert.equal(row.status, 'indexed', `${name}: ${row.error_message}`);
    assert.equal(row.attempts, 1, `${name} was not failed or retried because of the huge PDFs`);
  }
  assert.equal(rows.get(ids.get('short.pdf')!)!.chunks_count, 5, 'one chunk per page');
}

describe('chaos: a PDF with too many pages', () => {
  let rig: ChaosRig;
  before(async () => {
    rig = await startChaosRig('chaos_pdf_pages', { EXTRACT_MAX_PDF_PAGES: '5000', WORKER_CONCURRENCY: '2', PROCESS_MAX_ATTEMPTS: '5' });
  });
  after(async () => rig?.close());

  it('a 20,000-page PDF fails permanently at once; the rest of the batch indexes; memory stays bounded', async () => {
    await warmUp(rig);
    const memory = watchMemory();
    const ids = await uploadBatch(rig, [{ name: 'huge.pdf', data: manyPagePdf(20_000), type: 'application/pdf' }, ...(await ordinary())]);
    const rows = await settleRows(rig, [...ids.values()]);
    const { growthMb, peakMb } = memory.stop();
    const huge = rows.get(ids.get('huge.pdf')!)!;
    assert.equal(huge.status, 'failed');
    assert.equal(huge.error_message, 'The PDF has 20,000 pages; the limit is 5,000 (EXTRACT_MAX_PDF_PAGES).');
    assert.equal(huge.attempts, 1, 'failed at once, not after retries');
    assertOrdinaryIndexed(rows, ids);
    assert.ok(growthMb < RSS_GROWTH_BOUND_MB, `RSS grew by ${growthMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)} MB)`);

    const search = await rig.req('POST', '/api/v1/search/', { key: rig.tenant.key, json: { query: 'Quillmarten page 3' } });
    assert.equal(search.status, 200);
    assert.ok(JSON.stringify(search.body.results).includes(ids.get('short.pdf')!), 'the short PDF is searchable');
    process.stderr.write(`[chaos.huge-pdf pages] RSS baseline ${memory.baselineMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB\n`);
  });
});

describe('chaos: a PDF that takes too long', () => {
  let rig: ChaosRig;
  before(async () => {
    rig = await startChaosRig('chaos_pdf_time', {
      EXTRACT_TIMEOUT_MS: '3000',
      EXTRACT_MAX_PDF_PAGES: '20000',
      WORKER_CONCURRENCY: '2',
      PROCESS_MAX_ATTEMPTS: '5',
    });
  });
  after(async () => rig?.close());

  it('a PDF over EXTRACT_TIMEOUT_MS fails permanently; its thread is replaced; the rest of the batch indexes', async () => {
    await warmUp(rig);
    const memory = watchMemory();
    // 15,000 pages: 5,000 took just under the 3 s limit on an idle machine with the parsers loaded
    // ahead (a clean-clone run indexed it), so three times as many are well past it.
    const ids = await uploadBatch(rig, [{ name: 'slow.pdf', data: manyPagePdf(15000), type: 'application/pdf' }, ...(await ordinary())]);
    const rows = await settleRows(rig, [...ids.values()]);
    const { growthMb, peakMb } = memory.stop();
    const slow = rows.get(ids.get('slow.pdf')!)!;
    assert.equal(slow.status, 'failed');
    assert.equal(slow.error_message, 'Extraction took longer than 3 s; the limit is 3 s (EXTRACT_TIMEOUT_MS).');
    assert.equal(slow.attempts, 1, 'failed at once, not after retries');
    assertOrdinaryIndexed(rows, ids);
    assert.ok(growthMb < RSS_GROWTH_BOUND_MB, `RSS grew by ${growthMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)} MB)`);
    // The replacement thread extracts the next document.
    const next = await uploadBatch(rig, [{ name: 'next.pdf', data: manyPagePdf(2), type: 'application/pdf' }]);
    assert.equal([...(await settleRows(rig, [...next.values()])).values()][0]!.status, 'indexed');
  });
});
