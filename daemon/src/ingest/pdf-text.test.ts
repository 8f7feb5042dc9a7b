import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OfficeParser } from 'officeparser';
import { buildCorpus } from '../../../test/bench/lib/corpus.js';
import { samplePath } from '../../../test/fixtures/samples.js';
import { extractText, type PageSpan } from './extract.js';
import { normalizeWhitespace } from './normalize.js';
import { layOutPage, loadPdfJs } from './pdf-text.js';

// Before anything here loads pdf.js (pdf-text.ts loads it on first use).
const nodePush = Array.prototype.push;

/** What extraction returns when officeparser 7 reads a PDF itself: the reference. */
async function officeparserPdfText(data: Uint8Array): Promise<{ text: string; pages: PageSpan[] }> {
  const ast = await OfficeParser.parseOffice(Buffer.from(data), {
    fileType: 'pdf',
    ocr: false,
    extractAttachments: false,
    outputErrorToConsole: false,
  });
  const pages: PageSpan[] = [];
  let text = '';
  ast.content.forEach((node, i) => {
    const page = Number((node.metadata as { pageNumber?: number } | undefined)?.pageNumber ?? i + 1);
    const pageText = normalizeWhitespace(node.text ?? '');
    if (pageText !== '' && text !== '') text += '\n\n';
    const start = text.length;
    text += pageText;
    pages.push({ page, start, end: text.length });
  });
  return { text, pages };
}

test('PDF text and page offsets are exactly what officeparser gave, for the sample and generated PDFs', async () => {
  const pdfs = buildCorpus({ smallDocs: 150, largeKb: [1, 1, 60] })
    .filter((f) => f.type === 'pdf')
    .map((f) => ({ name: f.name, data: f.data }));
  pdfs.push({ name: 'sample.pdf', data: readFileSync(samplePath('sample.pdf')) });
  assert.ok(pdfs.length >= 15 && pdfs.some((p) => p.name.startsWith('large-')), 'small and large PDFs');
  for (const p of pdfs) {
    const got = await extractText({ sourceType: 'pdf', data: Buffer.from(p.data), filename: p.name });
    assert.deepEqual(got, await officeparserPdfText(p.data), p.name);
  }
});

test('a page is laid out top to bottom, then left to right, one line per baseline', () => {
  const items = [
    { str: 'world', x: 60, y: 700 },
    { str: 'second', x: 10, y: 680 },
    { str: 'Hello', x: 10, y: 703 }, // within 7 units: the same row, ordered by x
    { str: 'line', x: 70, y: 681 },
  ];
  assert.equal(layOutPage(items), 'Hello world\nsecond line');
});

test('blank items stay inside a line and never start one; empty items are skipped', () => {
  assert.equal(
    layOutPage([
      { str: ' ', x: 0, y: 500 },
      { str: 'a', x: 10, y: 500 },
      { str: '  ', x: 20, y: 500 },
      { str: 'b', x: 30, y: 500 },
      { str: '', x: 40, y: 100 },
      { str: ' ', x: 0, y: 400 },
      { str: 'c', x: 10, y: 400 },
    ]),
    'a  b\nc',
  );
  assert.equal(layOutPage([{ str: '   ', x: 0, y: 10 }]), '');
});

test("loading pdf.js keeps Node's own Array.prototype.push, which its bundled core-js replaces with a slower one", async () => {
  const pdfjs = await loadPdfJs();
  assert.equal(typeof pdfjs.getDocument, 'function');
  assert.equal(Array.prototype.push, nodePush);
  assert.equal(Object.getOwnPropertyDescriptor(Array.prototype, 'push')?.enumerable, false);
  const a = [1];
  assert.equal(a.push(2, 3), 3);
  assert.deepEqual(a, [1, 2, 3]);
});
