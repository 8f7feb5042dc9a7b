import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bm25Term, eachImage, kthLargest, topCandidates, type BlockRow } from './text-maxscore.js';

const P = { k1: 0.9, b: 0.4 };
const AVGDL = 100;

/** What `array_send(array[text_posting(no, tf, dl), …]::int8[])` returns. */
function sent(postings: [no: number, tf: number, dl: number][]): Buffer {
  if (!postings.length) return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20]);
  const buf = Buffer.alloc(20 + 12 * postings.length);
  buf.writeInt32BE(1, 0);
  buf.writeInt32BE(0, 4);
  buf.writeInt32BE(20, 8); // int8
  buf.writeInt32BE(postings.length, 12);
  buf.writeInt32BE(1, 16);
  postings.forEach(([no, tf, dl], i) => {
    buf.writeInt32BE(8, 20 + 12 * i);
    buf.writeInt32BE(no, 24 + 12 * i);
    buf.writeUInt32BE(((tf << 22) | dl) >>> 0, 28 + 12 * i);
  });
  return buf;
}

const lexeme = (name: string, idf: number): BlockRow => ({ kind: 0, lexeme: name, idf, grp: 0, max_impact: 0, p: null, avgdl: AVGDL });
/** A rare lexeme's lists in one group, read completely (one image per block, concatenated). */
const lists = (name: string, idf: number, grp: number, blocks: [number, number, number][][]): BlockRow => ({
  kind: 1,
  lexeme: name,
  idf,
  grp,
  max_impact: 0,
  p: Buffer.concat(blocks.map(sent)),
  avgdl: AVGDL,
});
/** A common lexeme's blocks read in one group, and the impact of its first unread block (0: none). */
const top = (name: string, idf: number, grp: number, unreadImpact: number, blocks: [number, number, number][][]): BlockRow => ({
  kind: 2,
  lexeme: name,
  idf,
  grp,
  max_impact: unreadImpact,
  p: blocks.length ? Buffer.concat(blocks.map(sent)) : null,
  avgdl: AVGDL,
});

test('eachImage: walks concatenated array_send images, empty arrays included', () => {
  const seen: [number, number][] = [];
  eachImage(
    Buffer.concat([
      sent([]),
      sent([[7, 1, 10]]),
      sent([]),
      sent([
        [1, 1, 1],
        [2, 2, 2],
      ]),
    ]),
    (at, n) => seen.push([at, n]),
  );
  assert.deepEqual(seen, [
    [12 + 24, 1],
    [12 + 32 + 12 + 24, 2],
  ]);
});

test('topCandidates: exact sums for complete lists, upper bounds for pruned ones, best first', () => {
  const rows = [
    lexeme('rare', 3),
    lexeme('common', 1),
    // a rare lexeme read completely: exact contributions, no bound
    lists('rare', 3, 0, [[[1, 2, 80]], [[2, 1, 120]]]),
    // a common lexeme: one block read, the next unread block bounds unseen postings at 0.5 × idf
    top('common', 1, 0, 0.5, [
      [
        [2, 3, 120],
        [3, 5, 60],
      ],
    ]),
  ];
  const out = topCandidates(rows, 10, P);
  const t = (tf: number, dl: number, idf: number) => bm25Term(idf, tf, dl, AVGDL, P.k1, P.b);
  const ub = new Map([
    [1, t(2, 80, 3) + 0.5], // not seen in the pruned list: its bound
    [2, t(1, 120, 3) + t(3, 120, 1)], // seen: its own term replaces the bound
    [3, t(5, 60, 1)],
  ]);
  const expected = [...ub].sort((a, b) => b[1] - a[1]).map(([no]) => no);
  assert.deepEqual(out.nos, expected);
  assert.deepEqual(
    out.dls,
    expected.map((no) => ({ 1: 80, 2: 120, 3: 60 })[no]),
  );
  assert.deepEqual(out.lexemes, ['rare', 'common']);
  assert.deepEqual(out.idfs, [3, 1]);
});

test('topCandidates: bounds count only in their own group (collection), and the cut keeps the m best', () => {
  const rows = [
    lexeme('w', 2),
    top('w', 2, 1, 0.8, [[[10, 1, 100]]]), // group 1: unseen postings may add 1.6
    top('w', 2, 2, 0, [
      [
        [20, 1, 100],
        [21, 9, 100],
      ],
    ]), // group 2: list read completely
  ];
  const all = topCandidates(rows, 10, P);
  assert.deepEqual(all.nos, [21, 10, 20]);
  assert.deepEqual(topCandidates(rows, 2, P).nos, [21, 10]);
  assert.deepEqual(topCandidates(rows, 0, P).nos, []);
});

test('topCandidates: equal bounds are cut by the known part, then by the lower number', () => {
  const rows = [lexeme('w', 1), lists('w', 1, 0, [[5, 4, 3, 2, 1].map((no) => [no, 1, 100] as [number, number, number])])];
  assert.deepEqual(topCandidates(rows, 3, P).nos, [1, 2, 3]);
});

test('kthLargest: the k-th largest of any order, duplicates included', () => {
  let x = 12345;
  const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 50; round++) {
    const a = Float64Array.from({ length: 1 + Math.floor(rand() * 300) }, () => Math.floor(rand() * 20));
    const sorted = [...a].sort((p, q) => q - p);
    const k = 1 + Math.floor(rand() * a.length);
    assert.equal(kthLargest(Float64Array.from(a), k), sorted[k - 1]);
  }
});
