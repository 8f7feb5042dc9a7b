import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { samplePath } from '../../../test/fixtures/samples.js';
import { extractText } from './extract.js';
import { containerType, memoiseOfficeModuleLoaders, officeModuleLoaders } from './office-modules.js';

const read = (file: string) => readFileSync(samplePath(file));

test("officeparser's module loaders are memoised once extract.ts is loaded: one load per thread, not one per document", async () => {
  const loaders = officeModuleLoaders();
  assert.equal((loaders.loadFileType as { memoised?: boolean } | undefined)?.memoised, true);
  assert.equal((loaders.loadPdfJs as { memoised?: boolean } | undefined)?.memoised, true);
  const fileType = loaders.loadFileType!();
  assert.equal(loaders.loadFileType!(), fileType, 'the same load, not a new import() per call');
  const pdfjs = loaders.loadPdfJs!();
  assert.equal(loaders.loadPdfJs!(), pdfjs);
  // The modules are the ones an import() gives.
  assert.equal(((await pdfjs) as { getDocument?: unknown }).getDocument, (await import('pdfjs-dist/legacy/build/pdf.mjs')).getDocument);
  assert.equal(typeof ((await fileType) as { fileTypeFromBuffer?: unknown }).fileTypeFromBuffer, 'function');
});

test("officeparser's file-type check gets the container type from the magic bytes, and every office sample still parses", async () => {
  const { fileTypeFromBuffer } = (await officeModuleLoaders().loadFileType!()) as {
    fileTypeFromBuffer: (b: Uint8Array) => Promise<unknown>;
  };
  for (const [file, ext] of [
    ['sample.docx', 'zip'],
    ['sample.xlsx', 'zip'],
    ['sample.odt', 'zip'],
    ['sample.epub', 'zip'],
    ['sample.pdf', 'pdf'],
    ['sample.rtf', 'rtf'],
    ['sample.txt', undefined],
  ] as const) {
    assert.equal(containerType(read(file))?.ext, ext, file);
    assert.deepEqual(await fileTypeFromBuffer(read(file)), containerType(read(file)), file);
  }
  assert.equal(containerType(new Uint8Array([0x50, 0x4b])), undefined, 'too short to be a zip');
  for (const [type, file] of [
    ['docx', 'sample.docx'],
    ['pptx', 'sample.pptx'],
    ['xlsx', 'sample.xlsx'],
    ['odt', 'sample.odt'],
    ['odp', 'sample.odp'],
    ['ods', 'sample.ods'],
    ['rtf', 'sample.rtf'],
    ['epub', 'sample.epub'],
  ] as const)
    assert.ok((await extractText({ sourceType: type, data: read(file), filename: file })).text.length > 20, type);
});

test('memoising again changes nothing, and documents extract the same before and after the first load', async () => {
  const before = officeModuleLoaders().loadFileType;
  assert.equal(memoiseOfficeModuleLoaders(), true);
  assert.equal(officeModuleLoaders().loadFileType, before, 'not wrapped twice');
  for (const [type, file] of [
    ['docx', 'sample.docx'],
    ['pdf', 'sample.pdf'],
  ] as const) {
    const first = await extractText({ sourceType: type, data: read(file), filename: file });
    const second = await extractText({ sourceType: type, data: read(file), filename: file });
    assert.deepEqual(second, first, type);
    assert.ok(first.text.length > 0);
  }
});
