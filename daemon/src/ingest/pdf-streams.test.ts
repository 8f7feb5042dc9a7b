import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { samplePath } from '../../../test/fixtures/samples.js';
import { deflateSync } from 'node:zlib';
import { chainBombPdf, flateBombPdf, lzwBombBytes, lzwBombPdf, pdfWithContentStream } from '../../../test/helpers/hostile-files.js';
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

/** Refused as content past `max`, within `ms`, without holding the decoded bytes. */
async function refusedFast(pdf: Buffer, max: number, ms = 5000): Promise<void> {
  const t0 = performance.now();
  const rss0 = process.memoryUsage().rss;
  await assert.rejects(assertPdfStreamsWithin(pdf, max, 1024 * MB), (e) => e instanceof PdfUnpackLimitError && !e.images);
  const took = performance.now() - t0;
  assert.ok(took < ms, `refused in ${took.toFixed(0)} ms`);
  assert.ok(process.memoryUsage().rss - rss0 < 64 * MB, 'the decoded bytes were never held');
}

test('filter chains count every filter: the Flate+LZW and ASCIIHex+LZW bombs are refused within 5 s', async () => {
  const flateLzw = await chainBombPdf(['FlateDecode', 'LZWDecode'], 1_500_000_000);
  assert.ok(flateLzw.length < 8 * 1024, `1.5 GB in ${flateLzw.length} bytes`);
  await refusedFast(flateLzw, 32 * MB);
  const hexLzw = await chainBombPdf(['ASCIIHexDecode', 'LZWDecode'], 400 * MB);
  assert.ok(hexLzw.length < 340 * 1024, `400 MB in ${hexLzw.length} bytes`);
  await refusedFast(hexLzw, 32 * MB);
  const small = await chainBombPdf(['FlateDecode', 'LZWDecode'], 400 * MB);
  assert.ok(small.length < 7 * 1024, `400 MB in ${small.length} bytes`);
  await refusedFast(small, 32 * MB);
});

test('chains of every expanding filter, in any order and three deep, are counted', async () => {
  for (const chain of [
    ['ASCII85Decode', 'FlateDecode'],
    ['RunLengthDecode', 'LZWDecode'],
    ['ASCIIHexDecode', 'FlateDecode', 'LZWDecode'],
    ['FlateDecode', 'FlateDecode', 'FlateDecode'],
  ])
    await refusedFast(await chainBombPdf(chain, 64 * MB), 16 * MB);
  // LZW first, Flate after it: the LZW output is the zlib data.
  const lzwThenFlate = pdfWithContentStream(
    lzwEncode(deflateSync(Buffer.alloc(64 * MB, 0x20), { level: 9 })),
    '/Filter [/LZWDecode /FlateDecode]',
  );
  await refusedFast(lzwThenFlate, 16 * MB);
});

test('a chain under the budget passes, every level counted once', async () => {
  // 16 MB of LZW output from about 40 KB of it, itself from a Flate stream.
  const pdf = await chainBombPdf(['FlateDecode', 'LZWDecode'], 16 * MB);
  await assertPdfStreamsWithin(pdf, 17 * MB, 1024 * MB);
  await assert.rejects(assertPdfStreamsWithin(pdf, 15 * MB, 1024 * MB), PdfUnpackLimitError);
});

test('the filter names are read as pdf.js reads them: abbreviations, #xx escapes, /F, indirect objects', async () => {
  const lzw = lzwBombBytes(64 * MB);
  const flated = deflateSync(lzw);
  for (const [data, dictionary, extra] of [
    [flated, '/Filter [/Fl /LZW]', []],
    [lzw, '/Filter /LZW#44ecode', []],
    [flated, '/F [/FlateDecode /LZWDecode] /Filter /FlateDecode', []],
    [flated, '/Filter 6 0 R', ['[/FlateDecode 7 0 R]', '/LZWDecode']],
  ] as const)
    await refusedFast(pdfWithContentStream(data, dictionary, [...extra]), 16 * MB);
});

test('a long dictionary, or one whose strings hold `obj` or `stream`, hides no filter', async () => {
  const lzw = lzwBombBytes(64 * MB);
  await refusedFast(pdfWithContentStream(lzw, `/Filter /LZWDecode /Padding (${'x'.repeat(8192)})`), 16 * MB);
  await refusedFast(pdfWithContentStream(lzw, '/Filter /LZWDecode /Note (1 0 obj << >> stream)'), 16 * MB);
  await refusedFast(pdfWithContentStream(lzw, '%comment obj\n/Filter /LZWDecode'), 16 * MB);
});

test('decode parameters pdf.js expands by are counted: a predictor row, an EarlyChange that is not a number', async () => {
  // PNG prediction writes whole rows: two bytes of input are a 100 MB row in pdf.js.
  const row = pdfWithContentStream(
    deflateSync(Buffer.from([2, 0])),
    '/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 100000000 >>',
  );
  await refusedFast(row, 16 * MB);
  // A code width pdf.js computes as 0: it decodes code 0 forever without reading a bit.
  const endless = pdfWithContentStream(Buffer.from([0x80, 0x00]), '/Filter /LZWDecode /DecodeParms << /EarlyChange /Yes >>');
  await refusedFast(endless, 16 * MB);
});

/** LZW-encodes `data` as literal 9-bit codes, clearing the table every 200 codes so the width never grows. */
function lzwEncode(data: Buffer): Buffer {
  const out: number[] = [];
  let acc = 0;
  let held = 0;
  const put = (code: number) => {
    acc = (acc << 9) | code;
    held += 9;
    while (held >= 8) {
      held -= 8;
      out.push((acc >>> held) & 0xff);
    }
    acc &= (1 << held) - 1;
  };
  for (let i = 0; i < data.length; i++) {
    if (i % 200 === 0) put(256);
    put(data[i]!);
  }
  put(257);
  if (held) out.push((acc << (8 - held)) & 0xff);
  return Buffer.from(out);
}
