import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { brotliCompressSync, deflateSync, constants as zlib } from 'node:zlib';
import { samplePath } from '../../../test/fixtures/samples.js';
import { encryptedPdf, lzwBombBytes, pdfWithContentStream } from '../../../test/helpers/hostile-files.js';
import { ExtractionError, extractText } from './extract.js';
import { pdfText } from './pdf-text.js';

// What pdf.js itself decodes is bounded too (pdf-decode-limits.mjs), for what the pre-count cannot
// see: an encrypted file's streams are ciphertext until pdf.js decrypts them.

const MB = 1024 * 1024;
const limits = { maxUnpackedBytes: 32 * MB, maxImageBytes: 96 * MB };

/** Fails with `message` within 5 s, memory growing by less than 64 MB. */
async function refused(run: () => Promise<unknown>, message: RegExp): Promise<void> {
  const t0 = performance.now();
  const rss0 = process.memoryUsage().rss;
  await assert.rejects(run, (e) => e instanceof ExtractionError && message.test(e.message));
  const took = performance.now() - t0;
  assert.ok(took < 5000, `refused in ${took.toFixed(0)} ms`);
  assert.ok(process.memoryUsage().rss - rss0 < 64 * MB, `RSS grew by ${((process.memoryUsage().rss - rss0) / MB).toFixed(0)} MB`);
}

test('an encrypted PDF reads as before: its text, under the limits', async () => {
  const pdf = encryptedPdf(deflateSync(Buffer.from('BT /F1 12 Tf 72 720 Td (sealed words) Tj ET')), '/Filter /FlateDecode');
  assert.equal((await extractText({ sourceType: 'pdf', data: pdf }, limits)).text, 'sealed words');
});

test('a bomb in an encrypted PDF, ciphertext to the pre-count, stops where pdf.js decodes it', async () => {
  // Flate then LZW, to 1.5 GB: pdf.js decrypts the stream, inflates it and expands the LZW codes.
  const bomb = encryptedPdf(deflateSync(lzwBombBytes(1_500_000_000)), '/Filter [/FlateDecode /LZWDecode]');
  assert.ok(bomb.length < 16 * 1024, `${bomb.length} bytes`);
  await refused(
    () => extractText({ sourceType: 'pdf', data: bomb }, limits),
    /^The PDF file unpacks to more than 32 MiB; the limit is 32 MiB \(EXTRACT_MAX_UNPACKED_MB\)\.$/,
  );
});

test('inside pdf.js, one stream decodes at most maxStreamBytes: Flate, and Brotli (decoded whole at once)', async () => {
  const decoding = { maxStreamBytes: 16 * MB, maxLiveBytes: 1024 * MB };
  const onDecodeLimit = (limit: string) => new ExtractionError(`past the ${limit} limit`);
  const onTooManyPages = () => new Error('pages');
  // Blank page content: pdf.js's lexer skips it at once, so decoding is what takes the time.
  const blank = Buffer.alloc(64 * MB, 0x20);
  const flate = pdfWithContentStream(deflateSync(blank), '/Filter /FlateDecode');
  await refused(() => pdfText(flate, { onTooManyPages, decoding, onDecodeLimit }), /^past the stream limit$/);
  const brotli = pdfWithContentStream(brotliCompressSync(blank, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }), '/Filter /BrotliDecode');
  assert.ok(brotli.length < 64 * 1024, `${brotli.length} bytes`);
  await refused(() => pdfText(brotli, { onTooManyPages, decoding, onDecodeLimit }), /^past the stream limit$/);
  // Many streams alive at once are bounded in all.
  const held = { maxStreamBytes: 16 * MB, maxLiveBytes: 8 * MB };
  await refused(() => pdfText(flate, { onTooManyPages, decoding: held, onDecodeLimit }), /^past the live limit$/);
});

test('ordinary PDFs read the same under the limits', async () => {
  const sample = await readFile(samplePath('sample.pdf'));
  const free = await extractText({ sourceType: 'pdf', data: sample });
  const bounded = await extractText({ sourceType: 'pdf', data: sample }, { maxUnpackedBytes: 1 * MB, maxImageBytes: 1 * MB });
  assert.deepEqual(bounded, free);
});
