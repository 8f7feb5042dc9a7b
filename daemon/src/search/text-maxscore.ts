import type { Bm25Params } from '../indexing/bm25-params.js';

/**
 * The per-posting half of the text channel's budgeted MaxScore, done in the daemon: PostgreSQL
 * picks the blocks (rare lexemes' whole lists, common lexemes' top blocks and which of those are
 * read) and sends them as `array_send(postings)`; here every posting is decoded, given its BM25
 * term, and summed per chunk, and the best candidates by upper bound are chosen. In the SQL
 * executor this was about 1 µs per posting (up to 5,000 essential postings plus the top blocks),
 * half of the text channel's CPU; here it is a few nanoseconds. The arithmetic is the SQL's
 * (`bm25_term`, float8), and the final scores are still computed in SQL from each candidate's own
 * tsvector, so returned scores stay exact BM25.
 */

/**
 * One row of the block query: a lexeme's idf (kind 0), a rare lexeme's complete lists in one
 * group (1), a common lexeme's top blocks in one group (2), or a query lexeme no searched list
 * holds, with a no-chunk idf (3: for the coverage only, text-channel.ts).
 */
export interface BlockRow {
  kind: number;
  lexeme: string;
  idf: number;
  /** candidate group: the lists' collection number, or 0 when reading global lists */
  grp: number;
  /** kind 2: the impact of the list's first unread block, which bounds every posting not read (0: none left) */
  max_impact: number;
  /** the postings read: `array_send(int8[])` images, concatenated; each posting (chunk no << 32) | (tf << 22) | doc_len */
  p: Buffer | null;
  avgdl: number;
}

/** The SQL function bm25_term(), operation for operation (same float8 results). */
export function bm25Term(idf: number, tf: number, dl: number, avgdl: number, k1: number, b: number): number {
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avgdl));
}

/**
 * Calls `fn` for each `array_send` image of a one-dimensional int8 array without nulls in `buf`
 * (concatenated): a 12-byte header (ndim, has-null flag, element type), then the dimension's
 * length and lower bound, then per element a 4-byte length (8) and the value, big-endian. `at` is
 * the offset of the first element's value; elements are 12 bytes apart.
 */
export function eachImage(buf: Buffer, fn: (at: number, n: number) => void): void {
  for (let o = 0; o + 12 <= buf.length; ) {
    if (buf.readInt32BE(o) === 0) {
      o += 12; // an empty array has no dimensions
      continue;
    }
    const n = buf.readInt32BE(o + 12);
    fn(o + 24, n);
    o += 20 + 12 * n;
  }
}

/**
 * The best `m` chunks by upper bound: the terms seen, plus for every pruned list of its group
 * that did not show it, that list's bound (its first unread block's impact × idf). Returns the
 * chunk numbers with their document lengths, and the lexemes with their idfs for the scoring.
 * Candidates live in parallel typed arrays: this runs once per posting, a few thousand times per search.
 */
export function topCandidates(
  rows: BlockRow[],
  m: number,
  p: Bm25Params,
): { nos: number[]; dls: number[]; lexemes: string[]; idfs: number[] } {
  const lexemes: string[] = [];
  const idfs: number[] = [];
  const bounds = new Map<string, number>();
  let total = 0;
  for (const r of rows) {
    if (r.kind === 0) lexemes.push(r.lexeme), idfs.push(r.idf);
    else if (r.kind === 2) bounds.set(`${r.grp} ${r.lexeme}`, r.max_impact * r.idf);
    if (r.p) eachImage(r.p, (_, n) => (total += n));
  }
  const groupBound = new Map<number, number>();
  for (const [key, bound] of bounds) {
    const grp = Number(key.slice(0, key.indexOf(' ')));
    groupBound.set(grp, (groupBound.get(grp) ?? 0) + bound);
  }
  // Open addressing on the chunk number (at most half full): a Map cost ~100 ns per posting.
  const size = 2 ** Math.ceil(Math.log2(2 * total + 2));
  const mask = size - 1;
  const table = new Int32Array(size).fill(-1);
  const no = new Int32Array(total);
  const grp = new Int32Array(total);
  const dl = new Int32Array(total);
  const score = new Float64Array(total);
  const seen = new Float64Array(total);
  let used = 0;
  const { k1, b } = p;
  for (const r of rows) {
    if (r.kind === 0 || !r.p) continue;
    const bound = r.kind === 2 ? (bounds.get(`${r.grp} ${r.lexeme}`) ?? 0) : 0;
    const { idf, avgdl } = r;
    const buf = r.p;
    eachImage(buf, (at, n) => {
      for (let i = 0, o = at; i < n; i++, o += 12) {
        const c = (buf[o]! << 24) | (buf[o + 1]! << 16) | (buf[o + 2]! << 8) | buf[o + 3]!;
        const lo = ((buf[o + 4]! << 24) | (buf[o + 5]! << 16) | (buf[o + 6]! << 8) | buf[o + 7]!) >>> 0;
        const tf = (lo >>> 22) & 1023;
        const len = lo & 4194303;
        const s = bm25Term(idf, tf, len, avgdl, k1, b);
        let h = Math.imul(c, 0x9e3779b1) & mask;
        let j = table[h]!;
        while (j !== -1 && no[j] !== c) j = table[(h = (h + 1) & mask)]!;
        if (j === -1) {
          table[h] = j = used++;
          no[j] = c;
          grp[j] = r.grp;
        }
        score[j]! += s;
        seen[j]! += bound;
        if (len > dl[j]!) dl[j] = len;
      }
    });
  }
  const ub = new Float64Array(used);
  // Rounded to 1e-9: bounds that differ only by the order of their float additions are ties.
  for (let j = 0; j < used; j++) ub[j] = Math.round((score[j]! + (groupBound.get(grp[j]!) ?? 0) - seen[j]!) * 1e9) / 1e9;
  // Only candidates reaching the m-th best bound are sorted (sorting all of them cost more than the rest together).
  const cut = used > m ? kthLargest(Float64Array.from(ub), m) : -Infinity;
  const order: number[] = [];
  for (let j = 0; j < used; j++) if (ub[j]! >= cut) order.push(j);
  // Equal bounds: the higher known part (its own terms) first, then the lower number, so the cut is deterministic.
  order.sort((x, y) => ub[y]! - ub[x]! || score[y]! - score[x]! || no[x]! - no[y]!);
  order.length = Math.min(order.length, m);
  return { nos: order.map((j) => no[j]!), dls: order.map((j) => dl[j]!), lexemes, idfs };
}

/** The k-th largest value (1-based) of `a`, which it reorders: quickselect, linear on average. */
export function kthLargest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  const want = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return a[want]!;
  }
  return a[want]!;
}
