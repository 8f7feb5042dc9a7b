// One organization cannot take the search and list capacity of the others: while another one
// searches, at most SEARCH_CONCURRENCY_PER_ORG of its searches and lists run at once, SEARCH_QUEUE_PER_ORG more wait
// in order, and the rest answer 429 RATE_LIMIT_EXCEEDED with Retry-After; another organization's
// searches and lists are served meanwhile. What this is worth in latency is measured by
// `npm run bench:filters` (the other tenant's p99 beside its baseline).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FILTER_LIMITS } from '../daemon/src/filters/parse.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { connectMcp, type ToolResult } from './helpers/mcp-client.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PER_ORG = 1;
const QUEUE = 2;

/** The largest filter the budget allows: a `not` of an `or` of `in` lists no document passes. */
function maximalFilter() {
  const per = FILTER_LIMITS.values / FILTER_LIMITS.clauses;
  return {
    not: {
      or: Array.from({ length: FILTER_LIMITS.clauses }, (_, i) => ({ code: { in: Array.from({ length: per }, (_, j) => `v${i}-${j}`) } })),
    },
  };
}

describe('search admission: one organization saturating its searches leaves the others served', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let a: Tenant;
  let b: Tenant;
  let mcpA: Client;

  before(async () => {
    d = await startTestDaemon({
      label: 'admission',
      worker: true,
      env: { SEARCH_CONCURRENCY_PER_ORG: String(PER_ORG), SEARCH_QUEUE_PER_ORG: String(QUEUE) },
    });
    req = http(d.url);
    a = await createTenant(d, 'adma');
    b = await createTenant(d, 'admb');
    for (const t of [a, b]) {
      const coll = await makeCollection(req, t.key, 'Ledgers');
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
        key: t.key,
        json: { source_type: 'text', title: 'Ledger', content: 'Quarterly ledger of the harbour office.', metadata: { code: 'c1' } },
      });
      assert.equal(r.status, 201, r.text);
      await waitSettled(req, t.key, [r.body.uuid]);
    }
    mcpA = await connectMcp(d.url, a.key);
  });
  after(async () => {
    await mcpA?.close();
    await d?.close();
  });

  const search = (t: Tenant, filter?: unknown) =>
    req('POST', '/api/v1/search/', { key: t.key, json: { query: 'harbour ledger', limit: 5, ...(filter ? { filter } : {}) } });
  const list = (t: Tenant) => req('GET', '/api/v1/documents/?limit=5', { key: t.key });
  const stream = (t: Tenant) => req('GET', '/api/v1/documents/', { key: t.key });
  const waitFor = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setImmediate(r));
  };

  it('queues then refuses the saturating organization with 429 and Retry-After, and serves the other at once', {
    timeout: 60_000,
  }, async () => {
    // Organization B is searching too (the bound holds while organizations share the daemon), and
    // A's only slot is taken (as by a statement that runs long); its next requests queue.
    let releaseB!: () => void;
    const holdingB = d.deps.admission.run(b.orgId, () => new Promise<void>((r) => (releaseB = r)));
    let release!: () => void;
    const holding = d.deps.admission.run(a.orgId, () => new Promise<void>((r) => (release = r)));
    const queued = [search(a), list(a)];
    await waitFor(() => d.deps.admission.load(a.orgId).waiting === QUEUE);
    try {
      for (const r of [await search(a), await list(a), await stream(a)]) {
        assert.equal(r.status, 429, r.text);
        assert.equal(r.body.code, 'RATE_LIMIT_EXCEEDED');
        assert.match(r.body.error, /SEARCH_CONCURRENCY_PER_ORG/);
        assert.equal(r.headers.get('retry-after'), '1');
      }
      const m = (await mcpA.callTool({ name: 'search_documents', arguments: { query: 'harbour ledger' } })) as ToolResult;
      assert.equal(m.isError, true);
      assert.equal(m.structuredContent.code, 'RATE_LIMIT_EXCEEDED');
      // Organization B is not behind A's queue.
      releaseB();
      await holdingB;
      const [sb, lb, stb] = [await search(b), await list(b), await stream(b)];
      assert.equal(sb.status, 200, sb.text);
      assert.equal(sb.body.count, 1);
      assert.equal(lb.status, 200, lb.text);
      assert.equal(stb.status, 200, stb.text);
      assert.equal(stb.body.length, 1);
      assert.deepEqual(d.deps.admission.load(a.orgId), { active: PER_ORG, waiting: QUEUE });
    } finally {
      releaseB();
      release();
      await Promise.all([holding, holdingB]);
    }
    // The queued requests are served in turn once the slot frees; nothing stays held.
    const [qs, ql] = await Promise.all(queued);
    assert.equal(qs!.status, 200, qs!.text);
    assert.equal(qs!.body.count, 1);
    assert.equal(ql!.status, 200, ql!.text);
    assert.deepEqual(d.deps.admission.load(a.orgId), { active: 0, waiting: 0 });
    assert.equal((await search(a)).status, 200);
  });

  it('an organization alone is not held to SEARCH_CONCURRENCY_PER_ORG', async () => {
    // Past the contended window (1 s) after the searches above: A's held slot leaves room for more.
    await new Promise((r) => setTimeout(r, 1100));
    let release!: () => void;
    const holding = d.deps.admission.run(a.orgId, () => new Promise<void>((r) => (release = r)));
    try {
      const r = await search(a);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(d.deps.admission.load(a.orgId), { active: 1, waiting: 0 });
    } finally {
      release();
      await holding;
    }
  });

  it('under a burst of maximal filters from one organization, the other organization is always served', { timeout: 120_000 }, async () => {
    const burst = Array.from({ length: 12 }, () => search(a, maximalFilter()));
    const victim = await Promise.all(Array.from({ length: 3 }, () => search(b)));
    const attacks = await Promise.all(burst);
    for (const r of victim) {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.count, 1);
    }
    const statuses = attacks.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 200 || s === 429),
      `only served or refused: ${statuses}`,
    );
    assert.ok(statuses.filter((s) => s === 200).length >= PER_ORG + QUEUE, `at least the running and queued are served: ${statuses}`);
    assert.deepEqual(d.deps.admission.load(a.orgId), { active: 0, waiting: 0 });
  });
});
