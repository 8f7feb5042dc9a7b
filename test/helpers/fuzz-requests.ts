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

// ---- filters (search, list, MCP): mostly well-formed trees with edge values, over and under the budget

/** A lone UTF-16 surrogate, inside other text or alone. */
const loneSurrogate = fc
  .tuple(fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 3 }))
  .map(([code, rest]) => `${rest}${String.fromCharCode(code)}${rest}`);
export const filterString = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('legal', 'Legal', 'hr', '', 'a', 'fuzz', 'md', 'txt', 'text', '%', '_', '\\', "'; select 1; --"),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '😀', 'x'.repeat(1000), 'x'.repeat(1001)) },
);
/** Timestamps in and out of what PostgreSQL stores, well- and ill-formed. */
export const filterDate = fc.oneof(
  fc.date({ noInvalidDate: true, min: new Date(-70_000_000_000_000), max: new Date(260_000_000_000_000) }).map((d) => d.toISOString()),
  fc.constantFrom(
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:00:00-05:00',
    '+010000-01-01T00:00:00Z',
    '2024-02-30',
    '2024-13-01T00:00:00Z',
    '2024-01-01',
    '2024-01-01 10:00',
    '2024-01-01T00:00:00.123456Z',
    '2024-06-30T12:00:00+0530',
  ),
);
const filterScalar = fc.oneof(
  { weight: 5, arbitrary: filterString },
  {
    weight: 2,
    arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -1, 2024, 1e21, 1e308)),
  },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: filterDate },
  { weight: 1, arbitrary: fc.uuid() },
);
const filterOperand = fc.oneof(
  { weight: 6, arbitrary: filterScalar },
  { weight: 3, arbitrary: fc.array(filterScalar, { maxLength: 6 }) },
  // Lists at and past their length limit (100), and past the budget of values once a few are and-ed.
  { weight: 1, arbitrary: fc.array(filterScalar, { minLength: 95, maxLength: 105 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), filterScalar, { maxKeys: 2 }) },
);
const filterField = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('tags', 'source_type', 'collection', 'document', 'created_at', 'original_filename') },
  { weight: 6, arbitrary: fc.constantFrom('year', 'dept', 'metadata.year', 'metadata.tags', 'a.b-c_d', 'k'.repeat(64)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'bad key!', '', 'k'.repeat(65), 'é', 'and', 'or', 'not'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const filterOp = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'exists', 'prefix') },
  { weight: 1, arbitrary: fc.constantFrom('between', '', 'EQ', '__proto__') },
);
/** `{[field]: value}` with `field` an own key even when it is "__proto__". */
const keyed = (key: string, value: unknown) =>
  Object.defineProperty({}, key, { value, enumerable: true, configurable: true, writable: true });
/** Any field with any operators and operands: mostly refused. */
const looseLeaf = fc
  .tuple(
    filterField,
    fc.oneof(
      { weight: 1, arbitrary: filterScalar },
      {
        weight: 4,
        arbitrary: fc
          .array(fc.tuple(filterOp, filterOperand), { maxLength: 3 })
          .map((ops) => Object.assign({}, ...ops.map(([o, v]) => keyed(o, v)))),
      },
    ),
  )
  .map(([f, c]) => keyed(f, c) as Record<string, unknown>);
const safeString = fc.constantFrom('legal', 'Legal', 'hr', '', 'a', 'fuzz', 'md', 'txt', 'text', 'keeper.pdf', 'ké', '%_\\');
const safeDate = fc
  .date({ noInvalidDate: true, min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z') })
  .map((d) => d.toISOString());
/** A field with operators and operands of the kinds it takes, from the given strings and dates: mostly accepted. */
function typedLeaf(str: fc.Arbitrary<string>, date: fc.Arbitrary<string>, listLength = { minLength: 1, maxLength: 6 }) {
  const scalar = fc.oneof(str, fc.integer({ min: -5, max: 3000 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean());
  const list = <T>(a: fc.Arbitrary<T>) => fc.array(a, listLength);
  const meta = fc.constantFrom('year', 'dept', 'metadata.year', 'n', 'flag', 'metadata.source_type');
  return fc
    .oneof(
      fc.tuple(
        meta,
        fc.oneof(
          fc.record({ eq: scalar }),
          fc.record({ ne: scalar }),
          fc.record({ in: list(scalar) }),
          fc.record({ nin: list(scalar) }),
          fc.record({ gte: fc.oneof(str, fc.integer()) }),
          fc.record({ lt: fc.oneof(str, fc.double({ noNaN: true, noDefaultInfinity: true })) }),
          fc.record({ exists: fc.boolean() }),
          scalar,
        ),
      ),
      fc.tuple(
        fc.constant('tags'),
        fc.oneof(fc.record({ eq: str }), fc.record({ nin: list(str) }), fc.record({ in: list(str) }), fc.record({ exists: fc.boolean() })),
      ),
      fc.tuple(
        fc.constantFrom('source_type', 'collection', 'original_filename'),
        fc.oneof(fc.record({ eq: str }), fc.record({ ne: str }), fc.record({ in: list(str) })),
      ),
      fc.tuple(fc.constant('original_filename'), fc.record({ prefix: str })),
      fc.tuple(fc.constant('document'), fc.oneof(fc.record({ eq: fc.uuid() }), fc.record({ nin: list(fc.uuid()) }))),
      fc.tuple(fc.constant('created_at'), fc.oneof(fc.record({ gte: date }), fc.record({ lt: date }), fc.record({ eq: date }), date)),
    )
    .map(([f, c]) => keyed(f, c) as Record<string, unknown>);
}
/** Leaves with edge values now and then (lone surrogates, NUL, long strings, dates PostgreSQL cannot store). */
const filterLeaf = fc.oneof(
  {
    weight: 6,
    arbitrary: typedLeaf(
      fc.oneof({ weight: 6, arbitrary: safeString }, { weight: 1, arbitrary: filterString }),
      fc.oneof(safeDate, filterDate),
    ),
  },
  { weight: 1, arbitrary: looseLeaf },
);
const { filterTree } = fc.letrec<{ filterTree: unknown }>((tie) => ({
  filterTree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    filterLeaf,
    fc.array(tie('filterTree'), { maxLength: 4 }).map((and) => ({ and })),
    fc.array(tie('filterTree'), { maxLength: 4 }).map((or) => ({ or })),
    tie('filterTree').map((not) => ({ not })),
  ),
}));
/** A filter as a client might send it: a tree, a wide one (over the condition or value budget), a deep one, or any JSON. */
export const filterCase = fc.oneof(
  { weight: 12, arbitrary: filterTree },
  // Around the budget: 90-110 conditions, or 240-700 values in a few long lists.
  { weight: 2, arbitrary: fc.array(typedLeaf(safeString, safeDate), { minLength: 90, maxLength: 110 }).map((or) => ({ or })) },
  {
    weight: 2,
    arbitrary: fc
      .array(typedLeaf(safeString, safeDate, { minLength: 60, maxLength: 100 }), { minLength: 4, maxLength: 7 })
      .map((and) => ({ and })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 8, max: 13 }), filterLeaf)
      .map(([depth, leaf]) =>
        Array.from({ length: depth }).reduce<unknown>((inner, _, i) => (i % 2 ? { not: inner } : { and: [inner] }), leaf),
      ),
  },
  { weight: 1, arbitrary: jsonish },
);
