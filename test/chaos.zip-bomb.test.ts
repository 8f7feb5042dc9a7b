import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { SAMPLES, samplePath } from './fixtures/samples.js';
import { type ChaosRig, settleRows, startChaosRig, uploadBatch, watchMemory } from './helpers/chaos-extract.js';
import { deflateSync } from 'node:zlib';
import { chainBombPdf, docxBomb, encryptedPdf, flateBombPdf, lzwBombBytes, lzwBombPdf, xlsxBomb } from './helpers/hostile-files.js';

// Zip bombs through the real upload → job → extraction-thread path. Limits are set low so the
// test is quick; the defaults (docs/operations.md, "Resource limits") scale the same behaviour up.
const UNPACKED_MB = 32;
const MEMORY_MB = 96;
// Growth of the whole test process's RSS while the batch is processed. Two extraction threads
// at a 96 MB heap plus 32 MB of inflated XML each stay well under it; without limits, inflating
// and parsing the 64 MB documents alone takes several GB.
const RSS_GROWTH_BOUND_MB = 450;

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describe('chaos: zip bombs', () => {
  let rig: ChaosRig;
  before(async () => {
    rig = await startChaosRig('chaos_zip', {
      EXTRACT_MAX_UNPACKED_MB: String(UNPACKED_MB),
      EXTRACT_MEMORY_MB: String(MEMORY_MB),
      WORKER_CONCURRENCY: '2',
      PROCESS_MAX_ATTEMPTS: '5',
    });
  });
  after(async () => rig?.close());

  it('bombs fail permanently with a clear message, the rest of the batch indexes, memory stays bounded', async () => {
    // Warm both extraction threads, so the baseline includes their fixed cost.
    const warm = await uploadBatch(rig, [
      { name: 'warm-1.txt', data: 'Warm-up text for the first thread.', type: 'text/plain' },
      { name: 'warm-2.txt', data: 'Warm-up text for the second thread.', type: 'text/plain' },
    ]);
    await settleRows(rig, [...warm.values()]);

    const docx = docxBomb(64 * 1024 * 1024);
    const xlsx = xlsxBomb(64 * 1024 * 1024);
    // Under the unpack limit, but its DOM is several times the thread's heap.
    const heapBomb = docxBomb(24 * 1024 * 1024);
    for (const b of [docx, xlsx, heapBomb]) assert.ok(b.length < 256 * 1024, `a bomb is small on the wire (${b.length} bytes)`);
    const sampleDocx = SAMPLES.find((s) => s.type === 'docx')!;

    const memory = watchMemory();
    const ids = await uploadBatch(rig, [
      { name: 'bomb.docx', data: docx, type: DOCX },
      { name: 'good-1.txt', data: 'The heron waits by the weir for the evening tide.', type: 'text/plain' },
      { name: 'bomb.xlsx', data: xlsx, type: XLSX },
      { name: 'heap-bomb.docx', data: heapBomb, type: DOCX },
      { name: sampleDocx.file, data: await readFile(samplePath(sampleDocx.file)), type: DOCX },
      { name: 'good-2.txt', data: 'A lantern of copper hangs in the orchard all winter.', type: 'text/plain' },
    ]);
    const rows = await settleRows(rig, [...ids.values()]);
    const { growthMb, peakMb } = memory.stop();
    const row = (name: string) => rows.get(ids.get(name)!)!;

    assert.equal(row('bomb.docx').status, 'failed');
    assert.equal(
      row('bomb.docx').error_message,
      `The Word file unpacks to more than ${UNPACKED_MB} MiB; the limit is ${UNPACKED_MB} MiB (EXTRACT_MAX_UNPACKED_MB).`,
    );
    assert.equal(row('bomb.xlsx').status, 'failed');
    assert.equal(
      row('bomb.xlsx').error_message,
      `The Excel file unpacks to more than ${UNPACKED_MB} MiB; the limit is ${UNPACKED_MB} MiB (EXTRACT_MAX_UNPACKED_MB).`,
    );
    assert.equal(row('heap-bomb.docx').status, 'failed');
    assert.equal(
      row('heap-bomb.docx').error_message,
      `Extraction ran out of memory: the document needs more than ${MEMORY_MB} MiB (EXTRACT_MEMORY_MB).`,
    );
    // Permanent: one attempt each, not PROCESS_MAX_ATTEMPTS.
    for (const name of ['bomb.docx', 'bomb.xlsx', 'heap-bomb.docx']) assert.equal(row(name).attempts, 1, `${name} attempts`);

    for (const name of ['good-1.txt', 'good-2.txt', sampleDocx.file]) {
      assert.equal(row(name).status, 'indexed', `${name}: ${row(name).error_message}`);
      assert.ok(row(name).chunks_count >= 1);
      assert.equal(row(name).attempts, 1, `${name} was not failed or retried because of a bomb`);
    }
    assert.ok(growthMb < RSS_GROWTH_BOUND_MB, `RSS grew by ${growthMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)} MB)`);

    // The worker still processes documents afterwards: nothing was left stuck or dead.
    const after = await uploadBatch(rig, [{ name: 'after.txt', data: 'Still indexing after the bombs went off.', type: 'text/plain' }]);
    const afterRows = await settleRows(rig, [...after.values()]);
    assert.equal([...afterRows.values()][0]!.status, 'indexed');
    process.stderr.write(`[chaos.zip-bomb] RSS baseline ${memory.baselineMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB\n`);
  });

  it('FlateDecode and LZWDecode bomb PDFs (400 MB of page content) fail within 10 s, naming the setting, memory bounded', async () => {
    const bomb = await flateBombPdf(400 * 1024 * 1024);
    const chained = await flateBombPdf(400 * 1024 * 1024, { levels: 2 });
    const disguised = await flateBombPdf(400 * 1024 * 1024, { label: '/Subtype /Image' });
    const lzw = lzwBombPdf(400 * 1024 * 1024);
    for (const b of [bomb, chained, disguised, lzw])
      assert.ok(b.length < 2 * 1024 * 1024, `a bomb is small on the wire (${b.length} bytes)`);
    const memory = watchMemory();
    const t0 = performance.now();
    const ids = await uploadBatch(rig, [
      { name: 'bomb.pdf', data: bomb, type: 'application/pdf' },
      { name: 'chained.pdf', data: chained, type: 'application/pdf' },
      { name: 'disguised.pdf', data: disguised, type: 'application/pdf' },
      { name: 'lzw.pdf', data: lzw, type: 'application/pdf' },
      { name: 'good.txt', data: 'The kestrel hovers over the verge at noon.', type: 'text/plain' },
    ]);
    const rows = await settleRows(rig, [...ids.values()], 60_000);
    const seconds = (performance.now() - t0) / 1000;
    const { growthMb, peakMb } = memory.stop();
    const row = (name: string) => rows.get(ids.get(name)!)!;
    for (const name of ['bomb.pdf', 'chained.pdf', 'lzw.pdf']) {
      assert.equal(row(name).status, 'failed', name);
      assert.equal(
        row(name).error_message,
        `The PDF file unpacks to more than ${UNPACKED_MB} MiB; the limit is ${UNPACKED_MB} MiB (EXTRACT_MAX_UNPACKED_MB).`,
      );
      assert.equal(row(name).attempts, 1, `${name}: permanent`);
    }
    assert.equal(row('disguised.pdf').status, 'failed');
    assert.equal(
      row('disguised.pdf').error_message,
      `The PDF file's images unpack to more than ${MEMORY_MB} MiB; the limit is ${MEMORY_MB} MiB (EXTRACT_MEMORY_MB).`,
    );
    assert.equal(row('good.txt').status, 'indexed');
    assert.ok(seconds < 10, `failed within 10 s (took ${seconds.toFixed(1)} s)`);
    // The bound of the issue: one extraction thread's memory at most (here 96 MB).
    assert.ok(growthMb < MEMORY_MB, `RSS grew by ${growthMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)} MB)`);
    process.stderr.write(
      `[chaos.zip-bomb] FlateDecode and LZW bombs: failed in ${seconds.toFixed(1)} s, RSS baseline ${memory.baselineMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB\n`,
    );
  });

  it('PDF filter chains (Flate+LZW to 1.5 GB, ASCIIHex+LZW and Flate+LZW to 400 MB, one encrypted) fail within 5 s, memory within EXTRACT_MEMORY_MB', async () => {
    const chains = {
      'flate-lzw-1.5gb.pdf': await chainBombPdf(['FlateDecode', 'LZWDecode'], 1_500_000_000),
      'hex-lzw-400mb.pdf': await chainBombPdf(['ASCIIHexDecode', 'LZWDecode'], 400 * 1024 * 1024),
      'flate-lzw-400mb.pdf': await chainBombPdf(['FlateDecode', 'LZWDecode'], 400 * 1024 * 1024),
      // Ciphertext to the pre-count: stopped inside pdf.js, where it decrypts and decodes.
      'encrypted-flate-lzw-1.5gb.pdf': encryptedPdf(deflateSync(lzwBombBytes(1_500_000_000)), '/Filter [/FlateDecode /LZWDecode]'),
    };
    assert.ok(chains['flate-lzw-1.5gb.pdf'].length < 8 * 1024, 'the worst chain is a few KB on the wire');
    const memory = watchMemory();
    const t0 = performance.now();
    const ids = await uploadBatch(
      rig,
      Object.entries(chains).map(([name, data]) => ({ name, data, type: 'application/pdf' })),
    );
    const rows = await settleRows(rig, [...ids.values()], 60_000);
    const seconds = (performance.now() - t0) / 1000;
    const { growthMb, peakMb } = memory.stop();
    for (const name of Object.keys(chains)) {
      const row = rows.get(ids.get(name)!)!;
      assert.equal(row.status, 'failed', name);
      assert.equal(
        row.error_message,
        `The PDF file unpacks to more than ${UNPACKED_MB} MiB; the limit is ${UNPACKED_MB} MiB (EXTRACT_MAX_UNPACKED_MB).`,
      );
      assert.equal(row.attempts, 1, `${name}: permanent`);
    }
    assert.ok(seconds < 5, `failed within 5 s (took ${seconds.toFixed(1)} s)`);
    assert.ok(growthMb < MEMORY_MB, `RSS grew by ${growthMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)} MB)`);
    process.stderr.write(
      `[chaos.zip-bomb] filter chains: failed in ${seconds.toFixed(1)} s, RSS baseline ${memory.baselineMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB\n`,
    );
  });
});
