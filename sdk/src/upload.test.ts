// Naming of upload sources: the service detects a file's type from its extension, so every part needs
// a file name. The README's call passes a nameless Blob with a title that is a file name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocsiftError } from './errors.js';
import { toNamedBlob, uploadForm } from './upload.js';

describe('toNamedBlob', () => {
  it('a nameless Blob takes its name from a title that has an extension', async () => {
    const f = await toNamedBlob(new Blob(['hello docsift']), undefined, undefined, 'hello.txt');
    assert.equal(f.name, 'hello.txt');
  });

  it('an explicit filename wins over the title', async () => {
    const f = await toNamedBlob(new Blob(['x']), undefined, 'notes.md', 'hello.txt');
    assert.equal(f.name, 'notes.md');
  });

  it('a nameless Blob with a title lacking an extension still says what to pass', async () => {
    await assert.rejects(toNamedBlob(new Blob(['x']), undefined, undefined, 'Meeting notes'), (err: unknown) => {
      assert.ok(err instanceof DocsiftError);
      assert.match(err.message, /pass \{ filename \}/);
      assert.match(err.message, /title/);
      return true;
    });
  });

  it('a {name, data} source without data is refused, not sent as an empty file', async () => {
    // Plain JavaScript callers get no type check: `{ name, blob }` (a typo for `data`) once uploaded
    // a file with no content and reported success.
    for (const bad of [
      { name: 'a.txt', blob: new Blob(['x']) },
      { name: 'a.txt', data: undefined },
      { name: 'a.txt', data: 42 },
    ]) {
      await assert.rejects(toNamedBlob(bad as never, undefined), (err: unknown) => {
        assert.ok(err instanceof DocsiftError);
        assert.match(err.message, /data/);
        return true;
      });
    }
  });

  it('a {name, data} source accepts text, bytes, an ArrayBuffer and a Blob', async () => {
    for (const data of ['hi', new Uint8Array([104, 105]), new Uint8Array([104, 105]).buffer, new Blob(['hi'])]) {
      const f = await toNamedBlob({ name: 'a.txt', data }, undefined);
      assert.equal(await f.blob.text(), 'hi');
    }
  });
});

describe('uploadForm: each file part carries its media type', () => {
  const partType = (form: FormData, field = 'file') => (form.get(field) as File).type;

  it('a part without a type gets the one its extension names, as curl sends it', () => {
    for (const [name, type] of [
      ['report.pdf', 'application/pdf'],
      ['notes.MD', 'text/markdown'],
      ['table.csv', 'text/csv'],
      ['deck.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      ['page.htm', 'text/html'],
    ] as const)
      assert.equal(partType(uploadForm('file', [{ name, blob: new Blob(['x']) }], {})), type, name);
  });

  it('a type the caller set is kept; an unknown extension gets none (sent as application/octet-stream)', async () => {
    const own = uploadForm('file', [{ name: 'a.txt', blob: new Blob(['x'], { type: 'text/x-custom' }) }], {});
    assert.equal(partType(own), 'text/x-custom');
    const unknown = uploadForm('files', [{ name: 'photo.png.bak', blob: new Blob(['x']) }], {});
    assert.equal(partType(unknown, 'files'), '');
    // The bytes are the caller's, unchanged.
    assert.equal(await (uploadForm('file', [{ name: 'a.md', blob: new Blob(['# hi']) }], {}).get('file') as File).text(), '# hi');
  });
});
