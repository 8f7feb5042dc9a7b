import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { bar, UploadProgressView, WaitProgressView } from './progress-view.js';

const strip = (s: string | undefined) => (s ?? '').replace(/\x1b\[[0-9;]*m/g, '');

test('the upload view shows a bar, files, bytes, rate and outcome counts', () => {
  const { lastFrame, rerender, unmount } = render(
    createElement(UploadProgressView, {
      filesTotal: 20,
      filesDone: 9,
      bytesTotal: 2_000_000,
      bytesDone: 900_000,
      uploaded: 7,
      skipped: 2,
      failed: 0,
      elapsedMs: 3000,
    }),
  );
  const frame = strip(lastFrame());
  assert.match(frame, /^Uploading █{14}░{16} 45%$/m);
  assert.match(frame, /^9\/20 files · 879 KiB \/ 1\.9 MiB · 293 KiB\/s · 3\.0 s$/m);
  assert.match(frame, /^7 uploaded · 2 skipped · 0 failed$/m);
  rerender(
    createElement(UploadProgressView, {
      filesTotal: 20,
      filesDone: 20,
      bytesTotal: 2_000_000,
      bytesDone: 2_000_000,
      uploaded: 17,
      skipped: 3,
      failed: 0,
      elapsedMs: 12_500,
    }),
  );
  assert.match(strip(lastFrame()), /█{30} 100%[\s\S]*20\/20 files[\s\S]*17 uploaded · 3 skipped/);
  unmount();
});

test('the wait view counts pending, indexed and failed', () => {
  const { lastFrame, unmount } = render(
    createElement(WaitProgressView, { total: 18, pending: 6, indexed: 10, failed: 2, elapsedMs: 1500 }),
  );
  assert.match(strip(lastFrame()), /^Indexing {2}█{20}░{10} 6 pending · 10 indexed · 2 failed · 1\.5 s$/);
  unmount();
});

test('bar clamps and handles empty totals', () => {
  assert.equal(bar(0.5, 4), '██░░');
  assert.equal(bar(2, 4), '████');
  assert.equal(bar(Number.NaN, 2), '██');
});

test('a wait before a retry is one more line of either view', () => {
  const notice = 'rate limited — resuming in 57 s (10 requests per minute on the free tier)';
  const wait = render(createElement(WaitProgressView, { total: 3, pending: 3, indexed: 0, failed: 0, elapsedMs: 1000, notice }));
  assert.match(strip(wait.lastFrame()), /^Indexing .*\nrate limited — resuming in 57 s \(10 requests per minute on the free tier\)$/);
  wait.unmount();
  const upload = render(
    createElement(UploadProgressView, {
      filesTotal: 4,
      filesDone: 0,
      bytesTotal: 100,
      bytesDone: 0,
      uploaded: 0,
      skipped: 0,
      failed: 0,
      elapsedMs: 1000,
      notice,
    }),
  );
  assert.equal(strip(upload.lastFrame()).split('\n').at(-1), notice);
  upload.unmount();
});
