import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PartCounter } from './part-counter.js';

const body =
  '--B\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n' +
  '--B\r\nContent-Disposition: form-data; name=\r\n\r\nx--B and -B\r\n-- are content\r\n' +
  '--B\r\nContent-Disposition: form-data; name="c"; filename="c.txt"\r\n\r\nx\r\n' +
  '--B--\r\nepilogue\r\n--B\r\nignored\r\n';

test('PartCounter counts the parts whatever the chunking, and nothing after the closing delimiter', () => {
  const bytes = Buffer.from(body);
  for (let size = 1; size <= bytes.length; size++) {
    const c = new PartCounter('B');
    for (let i = 0; i < bytes.length; i += size) c.push(bytes.subarray(i, i + size));
    assert.equal(c.parts, 3, `chunks of ${size}`);
  }
});

test('PartCounter: a preamble before the first delimiter, and a body cut before its end', () => {
  const c = new PartCounter('B');
  c.push(Buffer.from('preamble\r\n--B\r\n\r\nv\r\n--B\r\n\r\nw'));
  assert.equal(c.parts, 2);
  const empty = new PartCounter('B');
  empty.push(Buffer.from('--B--\r\n'));
  assert.equal(empty.parts, 0);
});
