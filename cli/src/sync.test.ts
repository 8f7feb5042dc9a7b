// planSync on its own: which files are uploaded, replaced, left alone or deleted, and which are read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planSync, syncKey, type LocalFile, type RemoteDoc } from './sync.js';

const file = (key: string, size = 10): LocalFile => ({ key, path: `/tree/${key}`, size });
let n = 0;
const doc = (key: string, sha: string | null, size = 10, extra: Partial<RemoteDoc> = {}): RemoteDoc => ({
  uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  original_filename: key,
  content_sha256: sha,
  file_size: size,
  source_type: 'md',
  status: 'indexed',
  created_at: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`,
  ...extra,
});

describe('planSync', () => {
  const hashes: Record<string, string> = { 'a.md': 'h-a', 'b.md': 'h-b2', 'c.md': 'h-c' };

  it('uploads new files, skips equal ones, replaces changed ones, and reads only files it must compare', async () => {
    const read: string[] = [];
    const hash = async (f: LocalFile) => (read.push(f.key), hashes[f.key]!);
    const remote = [doc('a.md', 'h-a'), doc('b.md', 'h-b1'), doc('c.md', 'h-c', 99), doc('old.md', 'h-o')];
    const plan = await planSync([file('a.md'), file('b.md'), file('c.md'), file('new.md')], remote, { delete: false, hash });
    assert.deepEqual(
      plan.upload.map((f) => f.key),
      ['new.md'],
    );
    assert.deepEqual(
      plan.unchanged.map((p) => p.file.key),
      ['a.md'],
    );
    assert.deepEqual(
      plan.replace.map((p) => p.file.key),
      ['b.md', 'c.md'],
    );
    assert.deepEqual(read.sort(), ['a.md', 'b.md'], 'c.md changed size: not read');
    assert.deepEqual(
      plan.kept.map((r) => [r.doc.original_filename, r.reason]),
      [['old.md', 'gone']],
    );
    assert.equal(plan.delete.length, 0);
  });

  it('keeps the oldest matching duplicate and removes the rest with --delete; text and URL documents are never touched', async () => {
    const older = doc('a.md', 'h-x');
    const match = doc('a.md', 'h-a');
    const newer = doc('a.md', 'h-a');
    const text = doc('', 'h-t', 10, { source_type: 'text' });
    const url = doc('page.html', null, 0, { source_type: 'url' });
    const plan = await planSync([file('a.md')], [newer, text, older, url, match], { delete: true, hash: async () => 'h-a' });
    assert.equal(plan.unchanged[0]?.doc.uuid, match.uuid);
    assert.deepEqual(
      plan.delete.map((r) => [r.doc.uuid, r.reason]).sort(),
      [
        [older.uuid, 'duplicate'],
        [newer.uuid, 'duplicate'],
      ].sort(),
    );
  });

  it('a document without a hash (stored before hashes) is replaced once; a skipped local file protects its document', async () => {
    const legacy = doc('a.md', null);
    const image = doc('pic.png', 'h-p');
    const plan = await planSync([file('a.md'), file('pic.png')], [legacy, image], { delete: true, hash: async () => 'never' });
    assert.deepEqual(
      plan.replace.map((p) => p.doc.uuid),
      [legacy.uuid],
    );
    assert.deepEqual(
      plan.skipped.map((s) => s.file.key),
      ['pic.png'],
    );
    assert.equal(plan.delete.length, 0);
  });

  it('keys use / on every platform', () => {
    assert.equal(syncKey('guide/intro.md'), 'guide/intro.md');
    assert.equal(syncKey('odd\\name.md'), 'odd/name.md');
  });
});
