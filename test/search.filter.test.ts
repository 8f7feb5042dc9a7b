import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { matches, type OracleDoc } from './helpers/filter-oracle.js';

// Value pools shared by the documents and the random filters, so filters hit, miss and straddle.
const KEYS = ['year', 'dept', 'n', 'flag', 'list', 'name'];
const STRINGS = ['legal', 'Legal', 'hr', 'eng', '', 'a', 'b', 'c', 'é', 'z', 'legal2', 'a"b', 'c\\d', '{x,y}'];
const NUMBERS = [2019, 2022, 2024, 2025, -1.5, 0, 0.5, 1e21];
const TAGS = ['red', 'Blue', 'green'];

const valueArb = fc.oneof(fc.constantFrom(...STRINGS), fc.constantFrom(...NUMBERS), fc.boolean());
const metaValueArb = fc.oneof(valueArb, fc.subarray(['a', 'b', 'c', 'legal']));

function filterArb(docs: () => OracleDoc[]) {
  const uuids = () => docs().map((d) => d.uuid);
  const times = () => docs().map((d) => d.created_at);
  const leafArb = fc.oneof(
    fc.record({
      f: fc.constantFrom(...KEYS, 'metadata.year', 'missing'),
      c: fc.oneof(
        fc.record({ eq: valueArb }),
        fc.record({ ne: valueArb }),
        fc.record({ in: fc.array(valueArb, { minLength: 1, maxLength: 3 }) }),
        fc.record({ nin: fc.array(valueArb, { minLength: 1, maxLength: 3 }) }),
        fc.record({ gt: fc.oneof(fc.constantFrom(...NUMBERS), fc.constantFrom(...STRINGS)) }),
        fc.record({ gte: fc.oneof(fc.constantFrom(...NUMBERS), fc.constantFrom(...STRINGS)) }),
        fc.record({ lt: fc.oneof(fc.constantFrom(...NUMBERS), fc.constantFrom(...STRINGS)) }),
        fc.record({ lte: fc.oneof(fc.constantFrom(...NUMBERS), fc.constantFrom(...STRINGS)) }),
        fc.record({ exists: fc.boolean() }),
        valueArb,
      ),
    }),
    fc.record({
      f: fc.constant('tags'),
      c: fc.oneof(
        fc.record({ eq: fc.constantFrom(...TAGS, 'RED') }),
        fc.record({ nin: fc.subarray(TAGS, { minLength: 1 }) }),
        fc.record({ in: fc.subarray(TAGS, { minLength: 1 }) }),
        fc.record({ exists: fc.boolean() }),
      ),
    }),
    fc.record({ f: fc.constant('source_type'), c: fc.record({ in: fc.subarray(['md', 'txt', 'markdown', 'text'], { minLength: 1 }) }) }),
    fc.record({
      f: fc.constant('collection'),
      c: fc.oneof(fc.record({ eq: fc.constantFrom('one', 'two') }), fc.record({ ne: fc.constantFrom('one', 'two') })),
    }),
    fc.record({ f: fc.constant('original_filename'), c: fc.record({ prefix: fc.constantFrom('dir0/', 'dir1/', 'dir2/f1', 'x') }) }),
    fc.integer({ min: 0, max: 1000 }).map((i) => ({ f: 'document', c: { in: uuids().filter((_, j) => (i >> (j % 10)) & 1) } })),
    fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.constantFrom('gt', 'gte', 'lt', 'lte', 'eq')).map(([i, op]) => ({
      f: 'created_at',
      c: { [op]: times()[i % times().length] },
    })),
  );
  const leaf = leafArb
    .filter((l: any) => !(l.f === 'document' && !l.c.in.length))
    .map((l: any) => ({ [l.f]: l.c }) as Record<string, unknown>);
  const { tree } = fc.letrec<{ tree: Record<string, unknown> }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((and) => ({ and })),
      fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((or) => ({ or })),
      tie('tree').map((not) => ({ not })),
    ),
  }));
  return tree;
}

describe('filter: search and listing are exact under random filters (fast-check, in-JS oracle)', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let a: Tenant;
  let b: Tenant;
  const docsA: OracleDoc[] = [];
  const docsB: OracleDoc[] = [];
  let colB: any;

  const upload = async (key: string, coll: any, i: number, meta: Record<string, unknown>, tags: string[]) => {
    const f = new FormData();
    const name = `dir${i % 3}/f${i}.${i % 2 ? 'md' : 'txt'}`;
    f.append('file', new Blob([`alpha document number w${i}x about shared topics`], { type: 'text/plain' }), name);
    f.append('metadata', JSON.stringify(meta));
    if (tags.length) f.append('tags', tags.join(','));
    const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key, body: f });
    assert.equal(r.status, 201, r.text);
    return r.body.uuid as string;
  };

  before(async () => {
    d = await startTestDaemon({ label: 'filter', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'fa');
    b = await createTenant(d, 'fb');
    const one = await makeCollection(req, a.key, 'one');
    const two = await makeCollection(req, a.key, 'two');
    colB = await makeCollection(req, b.key, 'three');
    const metaArb = fc.dictionary(fc.constantFrom(...KEYS), metaValueArb, { maxKeys: 5 });
    const sample = fc.sample(fc.tuple(metaArb, fc.subarray(TAGS)), { numRuns: 36, seed: 34 });
    const idsA: string[] = [];
    for (const [i, [meta, tags]] of sample.entries()) {
      if (i < 30) idsA.push(await upload(a.key, i % 2 ? one : two, i, meta, tags));
      // Tenant B holds the same kinds of values: a leak would show in every property run.
      else await upload(b.key, colB, i, meta, tags);
    }
    const settledA = await waitSettled(req, a.key, idsA, 180_000);
    const listB = await req('GET', '/api/v1/documents/', { key: b.key });
    const settledB = await waitSettled(
      req,
      b.key,
      listB.body.map((x: any) => x.uuid),
      180_000,
    );
    for (const [list, out] of [
      [settledA, docsA],
      [settledB, docsB],
    ] as const)
      for (const x of list) {
        assert.equal(x.status, 'indexed');
        out.push({
          uuid: x.uuid,
          tags: x.tags,
          source_type: x.source_type,
          collection_slug: x.collection_slug,
          created_at: x.created_at,
          original_filename: x.original_filename,
          metadata: x.metadata,
        });
      }
  });
  after(async () => d?.close());

  const expected = (filter: unknown) =>
    docsA
      .filter((x) => matches(x, filter))
      .map((x) => x.uuid)
      .sort();

  it('GET /documents/?filter= and search (text, vector, hybrid) return exactly the documents that pass', async () => {
    await fc.assert(
      fc.asyncProperty(
        filterArb(() => docsA),
        async (filter) => {
          const want = expected(filter);
          const list = await req('GET', `/api/v1/documents/?filter=${encodeURIComponent(JSON.stringify(filter))}`, { key: a.key });
          assert.equal(list.status, 200, list.text);
          assert.deepEqual(list.body.map((x: any) => x.uuid).sort(), want, `list ${JSON.stringify(filter)}`);
          // One chunk per document and at most 30 documents: vector mode (no floor) and text mode (every
          // document holds "alpha") must list every passing document, and nothing else.
          for (const mode of ['vector', 'text'] as const) {
            const s = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'alpha', mode, limit: 50, filter } });
            assert.equal(s.status, 200, s.text);
            assert.deepEqual(s.body.results.map((x: any) => x.document_id).sort(), want, `${mode} ${JSON.stringify(filter)}`);
          }
          const h = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'alpha w3x', limit: 50, filter } });
          assert.equal(h.status, 200, h.text);
          for (const r of h.body.results) assert.ok(want.includes(r.document_id), `hybrid let ${r.document_id} through`);
        },
      ),
      { numRuns: Number(process.env.FILTER_RUNS ?? 60), seed: Number(process.env.FILTER_SEED ?? Date.now() % 1e9) },
    );
  });

  it('a bad filter answers 400 VALIDATION_FAILED naming the clause, never 500', async () => {
    const cases: [unknown, string][] = [
      [{ and: [{ year: { gte: 2024 } }, { year: { gt: true } }] }, 'filter.and[1].year.gt'],
      [{ year: { between: [1, 2] } }, 'filter.year.between'],
      [{ tags: { gt: 'a' } }, 'filter.tags.gt'],
      [{ document: { eq: 'nope' } }, 'filter.document.eq'],
      [{ created_at: { gte: 'yesterday' } }, 'filter.created_at.gte'],
      [{ or: [] }, 'filter.or'],
      [{ not: [] }, 'filter.not'],
      [{ year: { in: [] } }, 'filter.year.in'],
      [{ year: { in: [1, { x: 1 }] } }, 'filter.year.in[1]'],
      [{ 'bad key!': 1 }, 'filter.bad key!'],
      [{ original_filename: { gt: 'a' } }, 'filter.original_filename.gt'],
      [{ year: { eq: null } }, 'filter.year.eq'],
      [{}, 'filter'],
      [[], 'filter'],
      ['year > 1', 'filter'],
      [{ dept: 'nul\u0000' }, 'filter.dept'],
      // Dates PostgreSQL cannot store (before year 1, after 9999 once the zone is applied) and lone
      // surrogates (not text in any encoding): 400 like any bad value, never a 500.
      [{ created_at: { gte: '0000-01-01T00:00:00Z' } }, 'filter.created_at.gte'],
      [{ created_at: { lt: '9999-12-31T23:00:00-05:00' } }, 'filter.created_at.lt'],
      [{ created_at: '0001-01-01T00:00:00+01:00' }, 'filter.created_at'],
      [{ dept: '\ud800' }, 'filter.dept'],
      [{ dept: { in: ['a', 'x\udc00y'] } }, 'filter.dept.in[1]'],
      [{ tags: { nin: ['\udbff'] } }, 'filter.tags.nin[0]'],
      [{ original_filename: { prefix: 'a\ud800' } }, 'filter.original_filename.prefix'],
    ];
    for (const [filter, path] of cases) {
      for (const r of [
        await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'alpha', filter } }),
        await req('GET', `/api/v1/documents/?limit=5&filter=${encodeURIComponent(JSON.stringify(filter))}`, { key: a.key }),
      ]) {
        assert.equal(r.status, 400, `${JSON.stringify(filter)}: ${r.text}`);
        assert.equal(r.body.code, 'VALIDATION_FAILED');
        assert.deepEqual(Object.keys(r.body.fields), [path], r.text);
      }
    }
    // The first and last instants PostgreSQL stores in this notation are accepted and run.
    for (const filter of [{ created_at: { gte: '0001-01-01T00:00:00Z' } }, { created_at: { lte: '9999-12-31T23:59:59Z' } }]) {
      const s = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'alpha', mode: 'text', limit: 50, filter } });
      assert.equal(s.status, 200, s.text);
      assert.equal(s.body.count, 30);
      const l = await req('GET', `/api/v1/documents/?limit=5&filter=${encodeURIComponent(JSON.stringify(filter))}`, { key: a.key });
      assert.equal(l.status, 200, l.text);
    }
    const list = await req('GET', '/api/v1/documents/?filter=%7Bnot%20json', { key: a.key });
    assert.equal(list.status, 400);
    assert.deepEqual(Object.keys(list.body.fields), ['filter']);
    // Arbitrary JSON: 200 or 400, never a server error.
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (filter) => {
        const r = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'alpha', mode: 'text', filter } });
        assert.ok(r.status === 200 || r.status === 400, `${r.status} for ${JSON.stringify(filter)}: ${r.text}`);
      }),
      { numRuns: 40 },
    );
  });

  it('`collections` searches several collections; an invisible one is 404', async () => {
    const both = await req('POST', '/api/v1/search/', {
      key: a.key,
      json: { query: 'alpha', mode: 'text', limit: 50, collections: ['one', 'two'] },
    });
    assert.equal(both.body.count, 30);
    const one = await req('POST', '/api/v1/search/', {
      key: a.key,
      json: { query: 'alpha', mode: 'text', limit: 50, collections: ['one'] },
    });
    assert.deepEqual(one.body.results.map((x: any) => x.document_id).sort(), expected({ collection: 'one' }));
    const legacy = await req('POST', '/api/v1/search/', {
      key: a.key,
      json: { query: 'alpha', mode: 'text', limit: 50, collection: 'two' },
    });
    assert.deepEqual(legacy.body.results.map((x: any) => x.document_id).sort(), expected({ collection: 'two' }));
    const r = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'alpha', collections: ['one', colB.slug] } });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'COLLECTION_NOT_FOUND');
  });

  it('cross-tenant: no filter field reaches another tenant’s documents', async () => {
    const other = docsB[0]!;
    const filters: Record<string, unknown>[] = [
      { document: { eq: other.uuid } },
      { document: { in: docsB.map((x) => x.uuid) } },
      { collection: { eq: colB.slug } },
      { collection: { ne: 'one' } },
      { original_filename: { prefix: other.original_filename } },
      { source_type: { in: [other.source_type] } },
      { tags: { exists: false } },
      { tags: { in: TAGS } },
      { created_at: { gte: other.created_at } },
      { not: { year: { exists: true } } },
      ...Object.entries(other.metadata).map(([k, v]) => ({ [k]: Array.isArray(v) ? { exists: true } : v })),
    ];
    const bIds = new Set(docsB.map((x) => x.uuid));
    for (const filter of filters) {
      for (const key of [a.key]) {
        const list = await req('GET', `/api/v1/documents/?filter=${encodeURIComponent(JSON.stringify(filter))}`, { key });
        assert.ok(!list.body.some((x: any) => bIds.has(x.uuid)), `list leak ${JSON.stringify(filter)}`);
        assert.deepEqual(list.body.map((x: any) => x.uuid).sort(), expected(filter));
        for (const mode of ['vector', 'text', 'hybrid']) {
          const s = await req('POST', '/api/v1/search/', { key, json: { query: 'alpha', mode, limit: 50, filter } });
          assert.equal(s.status, 200, s.text);
          assert.ok(!s.body.results.some((x: any) => bIds.has(x.document_id)), `search leak ${mode} ${JSON.stringify(filter)}`);
        }
      }
    }
    // The owner sees its own document through the same filter.
    const own = await req('POST', '/api/v1/search/', {
      key: b.key,
      json: { query: 'alpha', mode: 'text', filter: { document: other.uuid } },
    });
    assert.deepEqual(
      own.body.results.map((x: any) => x.document_id),
      [other.uuid],
    );
  });
});
