// Arbitraries of the fuzz suite (test/fuzz.requests.test.ts): mutations of multipart bodies, part
// names and file names, content types, and JSON-ish values.
import fc from 'fast-check';

export const BOUNDARY = 'fuzzBoundaryQ7xk2';

export const junk = fc.constantFrom(
  '\r\n',
  `--${BOUNDARY}\r\n`,
  `--${BOUNDARY}--`,
  'Content-Disposition: form-data\r\n',
  'Content-Disposition: form-data; filename="x.txt"\r\n',
  'Content-Disposition: form-data; name=\r\n',
  "Content-Disposition: form-data; name*=utf-8''%FF%FE\r\n",
  'Content-Type: \r\n',
  '\r\n\r\n',
  '\u0000',
  '%PDF-1.4\n',
);
export type Mutation = { kind: number; at: number; span: number; bytes: number[]; junk: string };
export const mutation = fc.record({
  kind: fc.integer({ min: 0, max: 6 }),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  span: fc.integer({ min: 1, max: 80 }),
  bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }),
  junk,
});
export function mutate(body: Buffer, m: Mutation): Buffer {
  const at = Math.floor(m.at * body.length);
  switch (m.kind) {
    case 0:
      return body.subarray(0, at);
    case 1:
      return Buffer.concat([body.subarray(0, at), body.subarray(at + m.span)]);
    case 2:
      return Buffer.concat([body.subarray(0, at + m.span), body.subarray(at)]);
    case 3: {
      const b = Buffer.from(body);
      for (const [i, v] of m.bytes.entries()) b[(at + i * 97) % b.length] = v;
      return b;
    }
    case 4:
    case 5:
      return Buffer.concat([body.subarray(0, at), Buffer.from(m.junk), body.subarray(at)]);
    default:
      return Buffer.concat([body.subarray(0, at), Buffer.from(body.subarray(at).toString('latin1').replace('\r\n', '\n'), 'latin1')]);
  }
}
export const filename = fc.oneof(
  fc.constantFrom('a.txt', 'a.pdf', 'dir/b.md', '../../etc/passwd', 'C:\\x\\y.txt', '', 'x.exe', 'a\u0000.txt', 'ü\u202e.txt'),
  fc.string({ maxLength: 40 }),
  fc.integer({ min: 1000, max: 1100 }).map((n) => `${'d/'.repeat(n / 2)}f.txt`),
);
/** Names an object literal finds on its prototype: a client's key must stay just a key. */
export const protoKey = fc.constantFrom('__proto__', 'toString', 'constructor', 'valueOf', 'hasOwnProperty');
export const objectKey = fc.oneof({ weight: 5, arbitrary: fc.string({ maxLength: 20 }) }, { weight: 1, arbitrary: protoKey });
export const textPart = fc.record({
  name: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('title', 'tags', 'source_type', 'content', 'url', 'x') },
    { weight: 1, arbitrary: protoKey },
  ),
  data: fc.string({ maxLength: 60 }),
});
export const filePart = fc.record({
  name: fc.constantFrom('file', 'files', 'files', 'attachment'),
  filename,
  type: fc.constantFrom('text/plain', 'application/pdf', 'application/octet-stream', '', 'text/html; charset=x'),
  pdf: fc.boolean(),
});
export const contentType = fc.constantFrom(
  `multipart/form-data; boundary=${BOUNDARY}`,
  `multipart/form-data; boundary="${BOUNDARY}"`,
  'multipart/form-data',
  'multipart/form-data; boundary=',
  `multipart/form-data; boundary=${'b'.repeat(100)}`,
  `multipart/mixed; boundary=${BOUNDARY}`,
  `Multipart/Form-Data; Boundary=${BOUNDARY}; charset=utf-8`,
  'application/json',
  'application/jsonx',
  'text/plain',
  '',
);
export const multipartCase = fc.record({
  parts: fc.array(fc.oneof(textPart, filePart), { minLength: 1, maxLength: 4 }),
  mutations: fc.array(mutation, { maxLength: 3 }),
  contentType: fc.oneof(
    { weight: 4, arbitrary: fc.constant(`multipart/form-data; boundary=${BOUNDARY}`) },
    { weight: 1, arbitrary: contentType },
  ),
});

export const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, -1, 0, 1e308, '', '\u0000', 'x'.repeat(5000), '2026-13-45', 'http://localhost./', 'http://[::1]/'),
);

export type MultipartCase = typeof multipartCase extends fc.Arbitrary<infer U> ? U : never;
