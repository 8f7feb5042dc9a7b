import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SAMPLES, BAD_FILES, PDF_PAGE2_PHRASE, HTML_NOISE_WORDS, samplePath } from '../../../test/fixtures/samples.js';
import { ExtractionError, decodeText, extractText, normalizeWhitespace } from './extract.js';

const read = (file: string) => readFileSync(samplePath(file));

test('every supported sample yields text containing its phrase and sentence', async () => {
  for (const s of SAMPLES) {
    const { text } = await extractText({ sourceType: s.type, data: read(s.file), filename: s.file });
    assert.ok(text.includes(s.phrase), `${s.file}: ${JSON.stringify(text)}`);
    assert.ok(text.replace(/\s+/g, ' ').includes(s.sentence), `${s.file} keeps the sentence intact`);
    assert.equal(text, normalizeWhitespace(text), `${s.file} is normalised`);
  }
});

test('PDF keeps page boundaries as offsets into the text', async () => {
  const { text, pages } = await extractText({ sourceType: 'pdf', data: read('sample.pdf') });
  assert.ok(pages);
  assert.deepEqual(
    pages.map((p) => p.page),
    [1, 2],
  );
  const [p1, p2] = pages;
  assert.ok(p1 && p2);
  assert.equal(p1.start, 0);
  assert.ok(p1.end <= p2.start && p2.end === text.length);
  assert.ok(text.slice(p1.start, p1.end).includes('quillfeather'));
  assert.ok(!text.slice(p1.start, p1.end).includes(PDF_PAGE2_PHRASE));
  assert.ok(text.slice(p2.start, p2.end).includes(PDF_PAGE2_PHRASE));
});

test('spreadsheets keep rows on one line', async () => {
  const { text } = await extractText({ sourceType: 'xlsx', data: read('sample.xlsx') });
  assert.match(text, /^Name \| Note$/m);
});

test('HTML drops scripts, styles, navigation and footers and decodes entities', async () => {
  const { text } = await extractText({ sourceType: 'html', data: read('sample.html') });
  for (const w of HTML_NOISE_WORDS) assert.ok(!text.includes(w), `${w} leaked: ${text}`);
  assert.ok(!text.includes('Site logo'), 'page header dropped');
  assert.ok(text.includes('Fish & chips — café © 2024 ok.'));
  assert.ok(text.startsWith('HTML sample heading'));
});

test('HTML without <main> falls back to the body', async () => {
  const html =
    '<html><head><title>t</title><script>nope()</script></head><body><header>Banner</header><h1>Hello</h1><p>World&nbsp;wide</p></body></html>';
  const { text } = await extractText({ sourceType: 'html', data: Buffer.from(html) });
  assert.equal(text, 'Hello\nWorld wide');
});

test('JSON flattens keys and values', async () => {
  const { text } = await extractText({ sourceType: 'json', data: read('sample.json') });
  assert.match(text, /^title: JSON sample$/m);
  assert.match(text, /^items\[0\]\.count: 3$/m);
  await assert.rejects(
    extractText({ sourceType: 'json', data: Buffer.from('{"broken": ') }),
    (e: unknown) => e instanceof ExtractionError && /JSON/.test(e.message),
  );
});

test('corrupt, encrypted, empty and mislabelled files fail permanently with readable messages', async () => {
  const cases: [string, string, RegExp][] = [
    ['pdf', BAD_FILES.corruptPdf, /corrupt/i],
    ['pdf', BAD_FILES.fakePdf, /corrupt/i],
    ['pdf', BAD_FILES.encryptedPdf, /password-protected/i],
    ['docx', BAD_FILES.fakeDocx, /corrupt/i],
    ['txt', BAD_FILES.emptyTxt, /no text found/i],
    ['pdf', BAD_FILES.emptyTxt, /empty/i],
  ];
  for (const [sourceType, file, message] of cases) {
    await assert.rejects(extractText({ sourceType, data: read(file) }), (e: unknown) => {
      assert.ok(e instanceof ExtractionError, `${file}: ${String(e)}`);
      assert.equal(e.permanent, true);
      assert.match(e.message, message, file);
      return true;
    });
  }
  await assert.rejects(extractText({ sourceType: 'txt', data: Buffer.from(' \n\t\u0000\n') }), /No text found/);
});

test('whitespace normalisation', () => {
  assert.equal(normalizeWhitespace('  a \t  b\u0000c\r\n\r\n\r\n\r\nd\u00a0\u00a0e  \n  f  '), 'a bc\n\nd e\nf');
  assert.equal(normalizeWhitespace('\ufeffx\fy'), 'x\ny');
});

test('text decoding handles BOMs and legacy encodings', () => {
  assert.equal(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69])), 'hi');
  assert.equal(decodeText(Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00])), 'hi');
  assert.equal(decodeText(Buffer.from('caf\xe9', 'latin1')), 'café');
});
