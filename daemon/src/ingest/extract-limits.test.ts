import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepJson, docxBomb, manyPagePdf, xlsxBomb } from '../../../test/helpers/hostile-files.js';
import { ExtractionError, extractText } from './extract.js';

// Extraction limits, in-process (the worker-thread limits, memory and time, are in extract-pool.test.ts).
// Each failure is an ExtractionError (permanent: the job does not retry) naming the setting to raise.

function rejectsPermanently(p: Promise<unknown>, message: RegExp): Promise<void> {
  return assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ExtractionError, `expected an ExtractionError, got ${String(e)}`);
    assert.equal(e.permanent, true);
    assert.match(e.message, message);
    return true;
  });
}

test('a PDF with more pages than EXTRACT_MAX_PDF_PAGES is refused before its pages are read', async () => {
  const pdf = manyPagePdf(120);
  await rejectsPermanently(
    extractText({ sourceType: 'pdf', data: pdf }, { maxPdfPages: 100 }),
    /^The PDF has 120 pages; the limit is 100 \(EXTRACT_MAX_PDF_PAGES\)\.$/,
  );
  // At the limit it is read as usual.
  const { pages } = await extractText({ sourceType: 'pdf', data: pdf }, { maxPdfPages: 120 });
  assert.equal(pages?.length, 120);
});

test('an office file that unpacks to more than EXTRACT_MAX_UNPACKED_MB is refused (zip bomb)', async () => {
  const bomb = docxBomb(3 * 1024 * 1024);
  assert.ok(bomb.length < 30_000, `the bomb is small on the wire (${bomb.length} bytes)`);
  await rejectsPermanently(
    extractText({ sourceType: 'docx', data: bomb }, { maxUnpackedBytes: 1024 * 1024 }),
    /^The Word file unpacks to more than 1 MiB; the limit is 1 MiB \(EXTRACT_MAX_UNPACKED_MB\)\.$/,
  );
  await rejectsPermanently(
    extractText({ sourceType: 'xlsx', data: xlsxBomb(3 * 1024 * 1024) }, { maxUnpackedBytes: 2 * 1024 * 1024 }),
    /^The Excel file unpacks to more than 2 MiB; the limit is 2 MiB \(EXTRACT_MAX_UNPACKED_MB\)\.$/,
  );
  // Under the limit the same kind of file extracts.
  const { text } = await extractText({ sourceType: 'docx', data: docxBomb(20_000, 'harmless') }, { maxUnpackedBytes: 1024 * 1024 });
  assert.match(text, /^harmless$/m);
});

test('extracted text longer than EXTRACT_MAX_TEXT_CHARS is refused', async () => {
  const big = Buffer.from('word '.repeat(3000));
  await rejectsPermanently(
    extractText({ sourceType: 'txt', data: big }, { maxTextChars: 10_000 }),
    /^The document's text has 14,999 characters; the limit is 10,000 \(EXTRACT_MAX_TEXT_CHARS\)\.$/,
  );
  const { text } = await extractText({ sourceType: 'txt', data: big }, { maxTextChars: 15_000 });
  assert.equal(text.length, 14_999);
});

test('deeply nested JSON fails at once as permanent, not as a retryable stack overflow', async () => {
  await rejectsPermanently(extractText({ sourceType: 'json', data: deepJson(200_000) }), /nested more than 1,000 levels deep/);
  // Ordinary nesting still flattens.
  const { text } = await extractText({ sourceType: 'json', data: deepJson(500) });
  assert.match(text, /^\[0\](\[0\]){499}: deep$/);
});
