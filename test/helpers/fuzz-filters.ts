// The fuzz suite's filter surface (test/fuzz.requests.test.ts): filters that straddle the parser
// (mostly well-formed trees with edge values, over and under the budget), and the property every
// one of them must hold through search, the document list and MCP.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFilter } from '../../daemon/src/filters/parse.js';
import { jsonish } from './fuzz-requests.js';

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

type Call = (method: string, path: string, o?: { json?: unknown; headers?: Record<string, string> }) => Promise<Response>;
type Check = (res: Response, what: string) => Promise<{ status: number; text: string }>;
const MODES = ['text', 'vector', 'hybrid'] as const;

/**
 * One filter through POST /search/ (`mode` 0-2), GET /documents/?filter= (when its URL fits Node's
 * 16 KiB header limit: past it the HTTP parser answers 431 before the daemon) and MCP
 * search_documents: what the parser accepts runs (200), the rest is 400 VALIDATION_FAILED (MCP:
 * isError with that code). `check` holds the suite's invariants. Returns whether it was accepted.
 */
export async function filterThroughEveryTransport(raw: unknown, mode: number, call: Call, check: Check): Promise<boolean> {
  // What the daemon sees: the JSON round trip (-0 is 0, lone surrogates survive as escapes).
  const text = JSON.stringify(raw);
  const filter = JSON.parse(text) as unknown;
  let accepted = true;
  try {
    parseFilter(filter);
  } catch {
    accepted = false;
  }
  const what = `filter ${text.slice(0, 300)}`;
  const verdict = async (res: Response, where: string) => {
    const r = await check(res, `${where} ${what}`);
    if (accepted) assert.equal(r.status, 200, `${where}: accepted by the parser, so it runs: ${r.text.slice(0, 300)} ${what}`);
    else {
      assert.equal(r.status, 400, `${where}: refused by the parser: ${r.text.slice(0, 300)} ${what}`);
      assert.equal(JSON.parse(r.text).code, 'VALIDATION_FAILED', `${where} ${what}`);
    }
  };
  await verdict(
    await call('POST', '/api/v1/search/', { json: { query: 'fuzz', mode: MODES[mode % 3], limit: 5, filter } }),
    'POST /api/v1/search/',
  );
  const qs = encodeURIComponent(text);
  if (qs.length < 12_000) await verdict(await call('GET', `/api/v1/documents/?limit=3&filter=${qs}`), 'GET /api/v1/documents/');
  const rpc = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_documents', arguments: { query: 'fuzz', filter } } };
  const mcp = await check(
    await call('POST', '/mcp', { json: rpc, headers: { accept: 'application/json, text/event-stream' } }),
    `POST /mcp ${what}`,
  );
  assert.equal(mcp.status, 200, `MCP answers in JSON-RPC: ${mcp.text.slice(0, 300)} ${what}`);
  const result = JSON.parse(mcp.text).result as { isError?: boolean; structuredContent?: { code?: string } } | undefined;
  // MCP's input schema (a zod record) drops a "__proto__" key, which REST takes as a metadata key:
  // such a filter may be refused there, never a 5xx. Deriving the tool's input from REST's ends it.
  if (accepted && !text.includes('"__proto__"'))
    assert.ok(result && !result.isError, `MCP: accepted by the parser, so it runs: ${mcp.text.slice(0, 300)} ${what}`);
  // A filter that is no JSON object fails the tool's input schema before the parser sees it.
  else if (!accepted && filter && typeof filter === 'object' && !Array.isArray(filter))
    assert.equal(result?.structuredContent?.code, 'VALIDATION_FAILED', `MCP: ${mcp.text.slice(0, 300)} ${what}`);
  return accepted;
}
