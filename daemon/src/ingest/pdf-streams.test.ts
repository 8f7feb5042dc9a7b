import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { samplePath } from '../../../test/fixtures/samples.js';
import { flateBombPdf, lzwBombPdf } from '../../../test/helpers/hostile-files.js';
import { assertPdfStreamsWithin, PdfUnpackLimitError } from './pdf-streams.js';

const MB = 1024 * 1024;

test('a PDF whose FlateDecode content inflates past the budget is refused, fast and without holding the output', async () => {
  const bomb = await flateBombPdf(64 * MB);
  assert.ok(bomb.length < 256 * 1024, `small on the wire: ${bomb.length}`);
  const t0 = performance.now();
  const rss0 = process.memoryUsage().rss;
  await assert.rejects(assertPdfStreamsWithin(bomb, 8 * MB, 1024 * MB), (e) => e instanceof PdfUnpackLimitError && !e.images);
  assert.ok(performance.now() - t0 < 5000);
  assert.ok(process.memoryUsage().rss - rss0 < 32 * MB, 'the inflated bytes were never held');
  // Under a larger budget it passes.
  await assertPdfStreamsWithin(bomb, 65 * MB, 1024 * MB);
});

test('a chain of FlateDecode filters counts every level', async () => {
  const chained = await flateBombPdf(64 * MB, { levels: 2 });
  assert.ok(chained.length < 8 * 1024, `a double-deflated bomb is tiny: ${chained.length}`);
  await assert.rejects(assertPdfStreamsWithin(chained, 16 * MB, 1024 * MB), PdfUnpackLimitError);
});

test('a bomb labelled as an image counts against the image budget', async () => {
  const image = await flateBombPdf(64 * MB, { label: '/Subtype /Image' });
  await assertPdfStreamsWithin(image, 8 * MB, 128 * MB);
  await assert.rejects(assertPdfStreamsWithin(image, 8 * MB, 16 * MB), (e) => e instanceof PdfUnpackLimitError && e.images);
});

test('a stream after `stream` and a lone CR is still counted', async () => {
  const bomb = await flateBombPdf(32 * MB);
  const cr = Buffer.from(bomb.toString('latin1').replace('stream\n', 'stream\r'), 'latin1');
  await assert.rejects(assertPdfStreamsWithin(cr, 8 * MB, 1024 * MB), PdfUnpackLimitError);
});

test('ordinary PDFs pass', async () => {
  await assertPdfStreamsWithin(await readFile(samplePath('sample.pdf')), 1 * MB, 1 * MB);
});

test('an LZWDecode bomb is counted as pdf.js decodes it, without decoding it', async () => {
  const bomb = lzwBombPdf(64 * MB);
  assert.ok(bomb.length < 64 * 1024, `small on the wire: ${bomb.length}`);
  const t0 = performance.now();
  await assert.rejects(assertPdfStreamsWithin(bomb, 8 * MB, 1024 * MB), (e) => e instanceof PdfUnpackLimitError && !e.images);
  assert.ok(performance.now() - t0 < 2000);
  await assertPdfStreamsWithin(bomb, 65 * MB, 1024 * MB);
});
