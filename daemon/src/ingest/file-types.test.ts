import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SAMPLES, BAD_FILES, samplePath } from '../../../test/fixtures/samples.js';
import { ALL_SOURCE_TYPES, MAGIC_HEAD_BYTES, SUPPORTED_TYPES, checkMagic, detectSourceType } from './file-types.js';

const head = (file: string) => readFileSync(samplePath(file)).subarray(0, MAGIC_HEAD_BYTES);

test('every supported type is detected from its extensions and media types', () => {
  for (const [type, info] of Object.entries(SUPPORTED_TYPES)) {
    for (const ext of info.extensions) assert.equal(detectSourceType(`Report.Final.${ext.toUpperCase()}`), type);
    for (const mt of info.mediaTypes) assert.equal(detectSourceType('no-extension', `${mt}; charset=utf-8`), type);
  }
  assert.equal(SAMPLES.length, Object.keys(SUPPORTED_TYPES).length);
  for (const s of SAMPLES) assert.equal(detectSourceType(s.file, s.mediaType), s.type);
});

test('unsupported files are rejected', () => {
  assert.equal(detectSourceType('image.png', 'image/png'), null);
  assert.equal(detectSourceType('setup.exe'), null);
  assert.equal(detectSourceType('photo.png', 'text/plain'), null, 'extension wins over media type');
  assert.equal(detectSourceType('blob', 'application/octet-stream'), null);
  assert.equal(detectSourceType('README'), null);
  assert.equal(detectSourceType('.bashrc'), null);
});

test('extension wins over a misleading media type', () => {
  assert.equal(detectSourceType('notes.md', 'application/octet-stream'), 'md');
  assert.equal(detectSourceType('data.csv', 'application/vnd.ms-excel'), 'csv');
});

test('source_type override takes precedence and is validated', () => {
  assert.equal(detectSourceType('notes.txt', 'text/plain', 'md'), 'md');
  assert.equal(detectSourceType('page.txt', undefined, 'HTM'), 'html');
  assert.equal(detectSourceType('x.bin', undefined, 'url'), 'url');
  assert.equal(detectSourceType('x.bin', undefined, 'text'), 'text');
  assert.equal(detectSourceType('x.pdf', undefined, 'png'), null);
  assert.equal(detectSourceType('x.pdf', undefined, '  '), 'pdf', 'blank override is ignored');
  assert.ok(ALL_SOURCE_TYPES.includes('text') && ALL_SOURCE_TYPES.includes('url'));
});

test('magic check accepts every real sample', () => {
  for (const s of SAMPLES) assert.equal(checkMagic(s.type, head(s.file)), true, s.file);
  assert.equal(checkMagic('txt', head(BAD_FILES.emptyTxt)), true);
  assert.equal(checkMagic('pdf', head(BAD_FILES.corruptPdf)), true, 'header is valid; extraction fails later');
});

test('magic check rejects content that does not match the claimed type', () => {
  assert.equal(checkMagic('pdf', head(BAD_FILES.fakePdf)), false);
  assert.equal(checkMagic('docx', head(BAD_FILES.fakeDocx)), false);
  assert.equal(checkMagic('rtf', head('sample.txt')), false);
  assert.equal(checkMagic('xlsx', head('sample.pdf')), false);
  assert.equal(checkMagic('ods', head('sample.odt')), false, 'ODF mimetype entry disagrees');
  assert.equal(checkMagic('odt', head('sample.epub')), false);
  assert.equal(checkMagic('epub', head('sample.epub')), true);
  assert.equal(checkMagic('docx', head('sample.odt')), true, 'OOXML has no mimetype entry to compare');
  assert.equal(checkMagic('png', head(BAD_FILES.imagePng)), false);
});

test('text types must look like text', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
  assert.equal(checkMagic('txt', png), false);
  assert.equal(checkMagic('json', Buffer.from('{"a":\u0000}')), false);
  assert.equal(checkMagic('csv', Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('a,b\n1,2\n')])), true, 'UTF-8 BOM');
  assert.equal(checkMagic('txt', Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00])), true, 'UTF-16 with BOM');
  assert.equal(checkMagic('txt', Buffer.from('caf\xe9 latin-1', 'latin1')), true);
  assert.equal(checkMagic('md', Buffer.from([0xe2, 0x82])), true, 'UTF-8 sequence cut by the head is fine');
  assert.equal(checkMagic('text', Buffer.from('hello')), true);
  assert.equal(checkMagic('html', Buffer.from(Array.from({ length: 64 }, (_, i) => (i % 7) + 1))), false, 'control bytes');
});
