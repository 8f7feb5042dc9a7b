// A filter's cost is bounded before any work: the parser counts its conditions, values, characters
// and depth and refuses one over the budget (400 VALIDATION_FAILED naming it) in search (REST, MCP) and
// listing alike; a legal filter, up to the largest, runs exactly, its value lists bound as one array
// parameter each. How cheap the largest legal filter is, is measured by `npm run bench:filters`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { compileFilter } from '../daemon/src/filters/compile.js';
import { FILTER_LIMITS, parseFilter } from '../daemon/src/filters/parse.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { connectMcp, type ToolResult } from './helpers/mcp-client.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { matches, type OracleDoc } from './helpers/filter-oracle.js';

/** `n` conditions under `or`, each `op` over a list of `size` values: `code` values, `pick(i)` first. */
function lists(n: number, size: number, op: 'in' | 'nin' = 'in', pick = (i: number) => `c${2 * i}`) {
  return {
    or: Array.from({ length: n }, (_, i) => ({
      code: { [op]: [pick(i), ...Array.from({ length: size - 1 }, (_, j) => `unused-${i}-${j}`)] },
    })),
  };
}

describe('filter cost: a budget checked before any work, and the largest legal filter runs exactly', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let a: Tenant;
  let b: Tenant;
  let client: Client;
  const docsA: OracleDoc[] = [];
  const idsB: string[] = [];

  before(async () => {
    d = await startTestDaemon({ label: 'filtercost', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'fca');
    b = await createTenant(d, 'fcb');
    const collA = await makeCollection(req, a.key, 'Costs');
    const collB = await makeCollection(req, b.key, 'Other');
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const [key, coll] = i < 12 ? [a.key, collA] : [b.key, collB];
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
        key,
        json: { source_type: 'text', title: `d${i}`, content: `budget ledger number ${i}`, metadata: { code: `c${i}`, dept: `d${i % 3}` } },
      });
      assert.equal(r.status, 201, r.text);
      (i < 12 ? ids : idsB).push(r.body.uuid);
    }
    for (const x of await waitSettled(req, a.key, ids)) {
      assert.equal(x.status, 'indexed');
      docsA.push({ ...x, uuid: x.uuid } as OracleDoc);
    }
    await waitSettled(req, b.key, idsB);
    client = await connectMcp(d.url, a.key);
  });
  after(async () => {
    await client?.close();
    await d?.close();
  });

  const search = (filter: unknown, mode = 'text') =>
    req('POST', '/api/v1/search/', { key: a.key, json: { query: 'budget ledger', mode, limit: 50, filter } });
  const list = (filter: unknown) =>
    req('GET', `/api/v1/documents/?limit=50&filter=${encodeURIComponent(JSON.stringify(filter))}`, { key: a.key });
  const mcp = async (filter: unknown) =>
    (await client.callTool({ name: 'search_documents', arguments: { query: 'budget ledger', limit: 50, filter } })) as ToolResult;

  it('refuses the 100 × 100 `in` filter (and its nin, not and or forms) with 400 naming the budget, in REST and MCP', async () => {
    const huge = lists(100, 100);
    assert.ok(JSON.stringify(huge).length > 100_000, 'about 100 KB');
    const forms = [huge, lists(100, 100, 'nin'), { not: huge }, { and: [{ dept: 'd0' }, huge] }];
    for (const filter of forms) {
      for (const mode of ['text', 'hybrid', 'vector']) {
        const r = await search(filter, mode);
        assert.equal(r.status, 400, r.text.slice(0, 300));
        assert.equal(r.body.code, 'VALIDATION_FAILED');
        assert.deepEqual(Object.keys(r.body.fields), ['filter']);
        assert.match(r.body.fields.filter[0], new RegExp(`at most ${FILTER_LIMITS.values} values`));
      }
      const m = await mcp(filter);
      assert.equal(m.isError, true);
      assert.equal(m.structuredContent.code, 'VALIDATION_FAILED');
      assert.deepEqual(Object.keys(m.structuredContent.fields), ['filter']);
      assert.match(m.structuredContent.fields.filter[0], new RegExp(`at most ${FILTER_LIMITS.values} values`));
    }
  });

  it('counts every value: one over the budget is refused in search and listing, the budget itself runs', async () => {
    const over = { and: [lists(5, 100), { dept: { in: ['d0', 'd1'] } }] };
    assert.equal(FILTER_LIMITS.values, 500);
    for (const r of [await search(over), await list(over)]) {
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.deepEqual(Object.keys(r.body.fields), ['filter']);
    }
    const exact = { and: [lists(4, 100), { dept: { in: Array.from({ length: 100 }, (_, i) => `d${i}`) } }] };
    for (const r of [await search(exact), await list(exact)]) assert.equal(r.status, 200, r.text.slice(0, 300));
    // Characters in all: 65 strings of 1,000 fit the budget (65,536), 66 do not.
    const long = (n: number) => ({
      or: Array.from({ length: n }, (_, i) => ({ note: `${'n'.repeat(996)}${String(i).padStart(4, '0')}` })),
    });
    assert.equal(FILTER_LIMITS.characters, 65_536);
    const tooLong = await search(long(66));
    assert.equal(tooLong.status, 400, tooLong.text.slice(0, 300));
    assert.deepEqual(Object.keys(tooLong.body.fields), ['filter']);
    assert.match(tooLong.body.fields.filter[0], /65,536 characters/);
    assert.equal((await search(long(65))).status, 200);
  });

  it('the largest legal filter (100 conditions, 500 values) runs exactly in every mode, in listing and MCP', async () => {
    // Each condition names an even code of tenant A (c0 … c10) or of tenant B (c12 … c22), and four unused values.
    const filter = lists(FILTER_LIMITS.clauses, FILTER_LIMITS.values / FILTER_LIMITS.clauses, 'in', (i) => `c${(2 * i) % 24}`);
    const want = docsA
      .filter((x) => matches(x, filter))
      .map((x) => x.uuid)
      .sort();
    assert.equal(want.length, 6);
    for (const mode of ['text', 'vector']) {
      const r = await search(filter, mode);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.deepEqual([...new Set(r.body.results.map((x: any) => x.document_id))].sort(), want, mode);
    }
    const h = await search(filter, 'hybrid');
    assert.equal(h.status, 200);
    for (const x of h.body.results) assert.ok(want.includes(x.document_id), 'hybrid keeps to the filter');
    const l = await list(filter);
    assert.equal(l.status, 200, l.text.slice(0, 300));
    assert.deepEqual(l.body.map((x: any) => x.uuid).sort(), want);
    const m = await mcp(filter);
    assert.ok(!m.isError, m.content[0]?.text);
    for (const x of m.structuredContent.results) assert.ok(want.includes(x.document_id), 'MCP keeps to the filter');
    for (const x of [...h.body.results, ...m.structuredContent.results]) assert.ok(!idsB.includes(x.document_id), 'no other tenant');
  });

  it('a value list is one bind parameter, whatever its length', async () => {
    const filter = parseFilter(lists(FILTER_LIMITS.clauses, FILTER_LIMITS.values / FILTER_LIMITS.clauses));
    const sql = d.deps.sql;
    const { types } = await sql`select d.id from documents d where ${compileFilter(sql, filter)}`.describe();
    assert.ok(types.length <= 2 * FILTER_LIMITS.clauses, `${types.length} parameters for ${FILTER_LIMITS.clauses} conditions`);
  });
});
