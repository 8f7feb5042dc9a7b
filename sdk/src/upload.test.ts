// Naming of upload sources: the service detects a file's type from its extension, so every part needs
// a file name. The README's call passes a nameless Blob with a title that is a file name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocsiftError } from './errors.js';
import { toNamedBlob } from './upload.js';

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
});
