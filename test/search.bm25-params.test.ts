// BM25_K1 and BM25_B as settings: scores follow them at once (exact BM25 with the configured pair),
// `docsift-daemon reindex` re-orders the impact-sorted lists for them, the daemon says at start while
// the index is ordered for another pair, and values out of range are refused.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../daemon/src/config.js';
import { indexParams, warnIfIndexOrderDiffers } from '../daemon/src/indexing/bm25-params.js';
import { createLogger } from '../daemon/src/logger.js';
import { assertIndexExact, assertIndexLayout, exhaustiveBm25 } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PAIR = { k1: 1.2, b: 0.75 };
const ENV = { BM25_K1: String(PAIR.k1), BM25_B: String(PAIR.b) };
const VOCAB = ['cell', 'protein', 'gene', 'tumor', 'immune', 'virus', 'brain', 'heart', 'blood', 'enzyme', 'receptor', 'kinase'];
// "common" is in every chunk (past the 5,000-posting budget at 6,000 chunks: read through its top
// blocks only); chunk lengths vary from 4 to about 60 words, so b changes the order of the lists.
const QUERIES = ['common kinase receptor', 'tumor immune common', 'telomerase common protein', 'heart blood'];

function chunkText(i: number): string {
  const words = ['common'];
  let x = (i * 2654435761) >>> 0;
  const n = 3 + ((i * 7) % 58);
  for (let j = 0; j < n; j++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(VOCAB[Math.floor(VOCAB.length * (x / 2 ** 32) ** 2)]!);
  }
  if (i % 50 === 11) words.push('telomerase');
  return words.join(' ');
}

async function fill(d: TestDaemon, t: Tenant, collectionId: string, from: number, count: number): Promise<void> {
  await d.deps.sql.begin(async (tx) => {
    const ids = await tx<{ id: string }[]>`
      insert into documents (collection_id, uploaded_by, title, source_type, status, chunks_count, indexed_at)
      select ${collectionId}, ${t.userId}, 'Doc ' || g, 'text', 'indexed', 10, now() from generate_series(1, ${Math.ceil(count / 10)}) g
      returning id`;
    await tx`
      insert into chunks (document_id, collection_id, generation, chunk_index, content, embedding_model, tsv)
      select (${ids.map((r) => r.id)}::uuid[])[(k - 1) / 10 + 1], ${collectionId}, 1, (k - 1) % 10, t.content, 'none',
             to_tsvector('english', t.content)
        from unnest(${Array.from({ length: count }, (_, k) => chunkText(from + k))}::text[]) with ordinality as t(content, k)`;
  });
}

function reindex(env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', 'reindex'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

/** The text channel's top 10 (id, score) through the API. */
async function top10(d: TestDaemon, t: Tenant, query: string): Promise<{ id: string; score: number }[]> {
  const r = await http(d.url)('POST', '/api/v1/search/', { key: t.key, json: { query, mode: 'text', limit: 10, explain: true } });
  assert.equal(r.status, 200, r.text);
  return r.body.results.map((h: { chunk_id: string; explain: { text: { score: number } } }) => ({
    id: h.chunk_id,
    score: h.explain.text.score,
  }));
}

/** Share of the exhaustive top 10 (with the pair) that the text channel returns, as a multiset of scores (ties make ids ambiguous). */
async function agreement(d: TestDaemon, t: Tenant, coll: string, query: string): Promise<number> {
  const got = (await top10(d, t, query)).map((g) => g.score.toFixed(6));
  const pool = (await exhaustiveBm25(d.deps.sql, [coll], query, 10, PAIR)).map((w) => w.score.toFixed(6));
  let found = 0;
  for (const g of got) {
    const at = pool.indexOf(g);
    if (at >= 0) pool.splice(at, 1), found++;
  }
  return found / 10;
}

describe('BM25_K1 and BM25_B', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let coll: string;
  let otherColl: string;
  const agreedBefore: number[] = [];

  before(async () => {
    d = await startTestDaemon({ label: 'bm25params', env: ENV });
    const req = http(d.url);
    t = await createTenant(d, 'params');
    other = await createTenant(d, 'paramsother');
    coll = (await makeCollection(req, t.key, 'Params')).uuid;
    otherColl = (await makeCollection(req, other.key, 'Params other')).uuid;
    await fill(d, t, coll, 0, 6000);
    await fill(d, other, otherColl, 50_000, 300);
    await d.deps.sql`select fold_text_stats()`;
    await d.deps.sql`analyze chunks`;
  });
  after(async () => d?.close());

  it('scores are exact BM25 with the configured pair at once, before any reindex (and differ from the order’s pair)', async () => {
    let differs = 0;
    for (const query of QUERIES) {
      const got = await top10(d, t, query);
      assert.equal(got.length, 10);
      const exact = new Map((await exhaustiveBm25(d.deps.sql, [coll], query, 6000, PAIR)).map((w) => [w.id, w.score]));
      const defaults = new Map((await exhaustiveBm25(d.deps.sql, [coll], query, 6000, { k1: 0.9, b: 0.4 })).map((w) => [w.id, w.score]));
      for (const g of got) {
        assert.ok(Math.abs(exact.get(g.id)! - g.score) < 1e-6, `${query}: ${g.score} vs exact ${exact.get(g.id)}`);
        if (Math.abs(defaults.get(g.id)! - g.score) > 1e-3) differs++;
      }
    }
    assert.ok(differs > 0, 'the settings reached the scores');
    const r = await http(d.url)('POST', '/api/v1/search/', { key: t.key, json: { query: 'heart', mode: 'text', explain: true } });
    assert.deepEqual(r.body.explain.bm25, PAIR, 'explain names the pair the text scores use');
    for (const query of QUERIES) agreedBefore.push(await agreement(d, t, coll, query));
  });

  it('a new database has the default order, which serves any pair: no warning at start', async () => {
    assert.deepEqual(await indexParams(d.deps.sql), { k1: 0.9, b: 0.4, avgdl: 100 }, 'a new database has the default order');
    const defaults = loadConfig({});
    assert.deepEqual({ k1: defaults.BM25_K1, b: defaults.BM25_B }, { k1: 1.2, b: 0.75 }, 'the settings’ defaults (migration 119)');
    const lines: string[] = [];
    const logger = createLogger('warn');
    const capture = { ...logger, warn: (_o: unknown, msg: string) => lines.push(msg) } as unknown as typeof logger;
    assert.equal(await warnIfIndexOrderDiffers(d.deps.sql, PAIR, capture), false);
    assert.equal(await warnIfIndexOrderDiffers(d.deps.sql, { k1: 1.5, b: 1 }, capture), false);
    assert.equal(lines.length, 0);
  });

  it('reindex orders the lists for the configured pair: impacts rewritten and recorded, top 10 as exhaustive, tenants apart', async () => {
    const [impact] = await d.deps.sql<{ now: number; want: number; old: number }[]>`
      select bm25_impact(3, 40) as now, bm25_term(1, 3, 40, 100, 1.2, 0.75)::real as want, bm25_term(1, 3, 40, 100, 0.9, 0.4)::real as old`;
    assert.notEqual(impact!.now, impact!.want, 'before: ordered for the defaults');
    const r = await reindex({ ...ENV, DATABASE_URL: d.db.url, DATA_DIR: d.dataDir });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Rebuilt the full-text index: 6300 chunk\(s\), .* ordered for BM25 k1 1\.2, b 0\.75\./);
    // Impacts at the corpus's mean chunk length (lexeme occurrences per chunk, rounded).
    const [mean] = await d.deps.sql<{ avgdl: number }[]>`
      select round(avg((select sum(coalesce(cardinality(x.positions), 1)) from unnest(tsv) x)))::float8 as avgdl from chunks`;
    const avgdl = mean!.avgdl;
    assert.ok(avgdl > 20 && avgdl < 45, `chunks of about 30 lexemes (${avgdl})`);
    const [rewritten] = await d.deps.sql<{ now: number; want: number }[]>`
      select bm25_impact(3, 40) as now, bm25_term(1, 3, 40, ${avgdl}, 1.2, 0.75)::real as want`;
    assert.equal(rewritten!.now, rewritten!.want);
    assert.deepEqual(await indexParams(d.deps.sql), { ...PAIR, avgdl });
    await assertIndexExact(d.deps.sql);
    await assertIndexLayout(d.deps.sql); // blocks sorted by the new impacts, tails below their head
    // Ordered for the pair at the corpus's own length, pruning finds the whole exhaustive top 10 of
    // every query, "common" read through its top blocks only (before: the 0.9/0.4 order at 100).
    const agreed: number[] = [];
    for (const query of QUERIES) agreed.push(await agreement(d, t, coll, query));
    assert.deepEqual(
      agreed,
      QUERIES.map(() => 1),
      `top-10 agreement ${agreed.join(', ')} (before the reindex: ${agreedBefore.join(', ')})`,
    );
    const foreign = new Set(
      (await d.deps.sql<{ id: string }[]>`select id from chunks where collection_id = ${otherColl}`).map((x) => x.id),
    );
    for (const g of await top10(d, t, 'telomerase common')) assert.ok(!foreign.has(g.id), 'no chunk of the other tenant');
    // Lists fitted to this pair: a start with another pair says so, and what to run.
    const lines: string[] = [];
    const logger = createLogger('warn');
    const capture = { ...logger, warn: (_o: unknown, msg: string) => lines.push(msg) } as unknown as typeof logger;
    assert.equal(await warnIfIndexOrderDiffers(d.deps.sql, PAIR, capture), false);
    assert.equal(await warnIfIndexOrderDiffers(d.deps.sql, { k1: 0.9, b: 0.4 }, capture), true);
    assert.match(lines[0] ?? '', /docsift-daemon reindex/);
    assert.equal(lines.length, 1);
  });

  it('keeps the new order for chunks added after the reindex and folded', async () => {
    await fill(d, t, coll, 20_000, 700);
    await d.deps.sql`select fold_text_stats()`;
    await assertIndexExact(d.deps.sql);
    await assertIndexLayout(d.deps.sql);
    const got = await top10(d, t, 'telomerase common protein');
    const want = (await exhaustiveBm25(d.deps.sql, [coll], 'telomerase common protein', 10, PAIR)).map((w) => w.score.toFixed(6));
    assert.deepEqual(
      got.map((g) => g.score.toFixed(6)),
      want,
    );
  });

  it('refuses values out of range or not numbers, naming the setting', () => {
    for (const [k, v] of [
      ['BM25_K1', '-0.1'],
      ['BM25_K1', 'abc'],
      ['BM25_B', '1.5'],
      ['BM25_B', '-1'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [k]: v }),
        (e: unknown) => e instanceof ConfigError && e.message.includes(k),
        `${k}=${v}`,
      );
    }
    assert.deepEqual((({ BM25_K1, BM25_B }) => ({ BM25_K1, BM25_B }))(loadConfig({ BM25_K1: '1.5', BM25_B: '0' })), {
      BM25_K1: 1.5,
      BM25_B: 0,
    });
  });
});
