// The text channel's candidate choice (daemon/src/search/text-maxscore.ts topCandidates) against
// brute-force BM25 over random corpora, as Tantivy checks its block-max pruning against exhaustive
// scoring: the upper bounds are bounds, the chosen candidates are the best by them, nothing is lost
// when every list is read, and whenever the candidates' n-th best exact score reaches every bound
// left out, their top n is the exhaustive top n. No database: the rows are what the blocks
// statement returns for the corpus (test/helpers/bm25-oracle.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { topCandidates } from '../daemon/src/search/text-maxscore.js';
import { exhaustive, layout, type OracleCorpus } from './helpers/bm25-oracle.js';

const EPS = 1e-9;
const LEXEMES = 4;

const corpusArb: fc.Arbitrary<OracleCorpus> = fc
  .record({
    chunks: fc.array(
      fc.record({
        grp: fc.integer({ min: 1, max: 3 }),
        dl: fc.integer({ min: 1, max: 400 }),
        tfs: fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 12 }) }), {
          minLength: LEXEMES,
          maxLength: LEXEMES,
        }),
      }),
      { minLength: 1, maxLength: 150 },
    ),
    layouts: fc.array(
      fc.record({
        essential: fc.boolean(),
        blockSize: fc.integer({ min: 1, max: 16 }),
        readShare: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      { minLength: LEXEMES, maxLength: LEXEMES },
    ),
    global: fc.boolean(),
    k1: fc.double({ min: 0.3, max: 2.5, noNaN: true }),
    b: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  // Chunk numbers are distinct and not in corpus order (ties are cut by the lower number).
  .map((c) => ({ ...c, chunks: c.chunks.map((x, i) => ({ ...x, no: ((i * 7919) % 100_003) + 1 })) }));

const RUNS = Number(process.env.MAXSCORE_RUNS ?? 300);

describe('topCandidates against brute-force BM25 (fast-check)', () => {
  it('bounds hold, the m best by bound are chosen, document lengths and terms come back', () => {
    fc.assert(
      fc.property(corpusArb, fc.integer({ min: 1, max: 60 }), (corpus, m) => {
        const exact = exhaustive(corpus);
        const { rows, bounds } = layout(corpus);
        for (const [no, ub] of bounds) assert.ok(ub >= exact.get(no)! - EPS, `bound ${ub} below the exact ${exact.get(no)} of ${no}`);
        const out = topCandidates(rows, m, corpus);
        assert.equal(out.nos.length, Math.min(m, bounds.size));
        assert.equal(new Set(out.nos).size, out.nos.length, 'no chunk twice');
        const ub = out.nos.map((no) => bounds.get(no)!);
        for (let i = 1; i < ub.length; i++) assert.ok(ub[i]! <= ub[i - 1]! + EPS, 'best bound first');
        const chosen = new Set(out.nos);
        const lowest = Math.min(...ub);
        for (const [no, b] of bounds) if (!chosen.has(no)) assert.ok(b <= lowest + EPS, `${no} (bound ${b}) left out for ${lowest}`);
        const dl = new Map(corpus.chunks.map((x) => [x.no, x.dl]));
        assert.deepEqual(
          out.dls,
          out.nos.map((no) => dl.get(no)),
        );
        assert.deepEqual(
          out.lexemes,
          rows.filter((r) => r.kind === 0).map((r) => r.lexeme),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('with every list read, the candidates are the exhaustive top m', () => {
    fc.assert(
      fc.property(corpusArb, fc.integer({ min: 1, max: 60 }), (corpus, m) => {
        const full = { ...corpus, layouts: corpus.layouts.map((l) => ({ ...l, readShare: 1 })) };
        const exact = exhaustive(full);
        const out = topCandidates(layout(full).rows, m, full);
        const scored = [...exact].filter(([, s]) => s > 0);
        assert.equal(out.nos.length, Math.min(m, scored.length));
        const chosen = new Set(out.nos);
        const lowest = Math.min(...out.nos.map((no) => exact.get(no)!));
        for (const [no, s] of scored) if (!chosen.has(no)) assert.ok(s <= lowest + EPS, `${no} (BM25 ${s}) left out for ${lowest}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('when the n-th best candidate reaches every bound left out, the top n is the exhaustive top n', () => {
    let decided = 0;
    fc.assert(
      fc.property(corpusArb, fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 10 }), (corpus, m, n) => {
        const exact = exhaustive(corpus);
        const { rows, bounds, unseenBound } = layout(corpus);
        const out = topCandidates(rows, m, corpus);
        const mine = out.nos.map((no) => exact.get(no)!).sort((x, y) => y - x);
        if (mine.length < n) return;
        const chosen = new Set(out.nos);
        const leftOut = Math.max(0, ...[...bounds].filter(([no]) => !chosen.has(no)).map(([, b]) => b), ...unseenBound.values());
        if (mine[n - 1]! < leftOut + EPS) return;
        decided++;
        const truth = [...exact.values()].sort((x, y) => y - x).slice(0, n);
        for (let i = 0; i < n; i++) assert.ok(Math.abs(truth[i]! - mine[i]!) <= EPS, `rank ${i + 1}: ${mine[i]} against ${truth[i]}`);
      }),
      { numRuns: RUNS },
    );
    assert.ok(decided > RUNS / 20, `the condition held in ${decided} of ${RUNS} runs: the property was exercised`);
  });
});
