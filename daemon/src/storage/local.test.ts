import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { LocalBlobStore } from './local.js';
import { BlobTooLargeError } from './types.js';

async function store() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'docsift-local-blobs-'));
  return { root, blobs: new LocalBlobStore(root), files: async (dir: string) => readdir(path.join(root, dir)).catch(() => []) };
}

const bytes = (n: number, seed = 7) => Buffer.from(Array.from({ length: n }, (_, i) => (i * seed + 3) % 251));
/** A body that arrives in `parts` chunks, as a socket delivers it. */
const chunked = (data: Buffer, parts: number) =>
  Readable.from(
    Array.from({ length: parts }, (_, i) =>
      data.subarray(Math.floor((i * data.length) / parts), Math.floor(((i + 1) * data.length) / parts)),
    ),
  );

test('small and large bodies are stored whole, with their size and first bytes, and no temp file left', async (t) => {
  const { root, blobs, files } = await store();
  t.after(() => rm(root, { recursive: true, force: true }));
  for (const [key, data] of [
    ['docs/c1/small', bytes(1700)],
    ['docs/c1/empty', Buffer.alloc(0)],
    ['docs/c1/large', bytes(900_000, 13)], // past the in-memory size: streamed to its file
  ] as const) {
    const r = await blobs.put(key, chunked(data, 9), { maxBytes: 10_000_000, contentType: 'application/octet-stream', headBytes: 64 });
    assert.equal(r.size, data.length, key);
    assert.deepEqual(r.head, data.subarray(0, 64), key);
    assert.deepEqual(await readFile(path.join(root, key)), data, key);
  }
  assert.deepEqual((await files('docs/c1')).sort(), ['empty', 'large', 'small']);
});

test('a body over the limit fails with BlobTooLargeError and leaves nothing, small or large', async (t) => {
  const { root, blobs, files } = await store();
  t.after(() => rm(root, { recursive: true, force: true }));
  for (const [maxBytes, size] of [
    [1000, 1001],
    [400_000, 900_000],
  ] as const) {
    const body = chunked(bytes(size), 20);
    await assert.rejects(blobs.put(`docs/c2/over-${maxBytes}`, body, { maxBytes, contentType: 'text/plain' }), BlobTooLargeError);
    assert.ok(body.destroyed, 'the rest of the body is not read');
  }
  assert.deepEqual(await files('docs/c2'), []);
});

test('a body that fails midway, or has already failed, rejects with its error instead of hanging', async (t) => {
  const { root, blobs, files } = await store();
  t.after(() => rm(root, { recursive: true, force: true }));
  const midway = new PassThrough();
  midway.write(bytes(500));
  setImmediate(() => midway.destroy(new Error('client went away')));
  await assert.rejects(blobs.put('docs/c3/midway', midway, { maxBytes: 10_000, contentType: 'text/plain' }), /client went away/);

  const failed = new PassThrough();
  failed.destroy(new Error('already failed'));
  await assert.rejects(blobs.put('docs/c3/failed', failed, { maxBytes: 10_000, contentType: 'text/plain' }), /already failed/);

  const closed = new PassThrough();
  closed.write(bytes(10));
  closed.destroy();
  await assert.rejects(blobs.put('docs/c3/closed', closed, { maxBytes: 10_000, contentType: 'text/plain' }), /premature close/i);
  assert.deepEqual(await files('docs/c3'), []);
});

test('a directory removed after its first file is made again', async (t) => {
  const { root, blobs } = await store();
  t.after(() => rm(root, { recursive: true, force: true }));
  await blobs.put('docs/c4/a', Readable.from([bytes(10)]), { maxBytes: 100, contentType: 'text/plain' });
  await rm(path.join(root, 'docs/c4'), { recursive: true });
  await blobs.put('docs/c4/b', Readable.from([bytes(20)]), { maxBytes: 100, contentType: 'text/plain' });
  assert.deepEqual(await readFile(path.join(root, 'docs/c4/b')), bytes(20));
});
