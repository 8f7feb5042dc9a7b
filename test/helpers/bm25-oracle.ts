// The text channel's arithmetic, written independently of daemon/src/search/text-maxscore.ts: a
// corpus of chunks with their term frequencies, its exhaustive BM25 (Lucene IDF), the block rows
// the blocks statement would return for it (complete lists for essential lexemes, the top blocks
// read of the others), and each chunk's upper bound from those rows. For property tests.
import type { BlockRow } from '../../daemon/src/search/text-maxscore.js';

export interface OracleChunk {
  no: number;
  /** its collection's number (the candidate group), 1-based */
  grp: number;
  dl: number;
  /** term frequency per lexeme, by the lexeme's index; 0: absent */
  tfs: number[];
}

export interface LexemeLayout {
  /** rare: its lists are read completely (kind 1) */
  essential: boolean;
  /** postings per block */
  blockSize: number;
  /** share of a common lexeme's blocks read, best first (kind 2) */
  readShare: number;
}

export interface OracleCorpus {
  chunks: OracleChunk[];
  layouts: LexemeLayout[];
  /** the global lists (one group, 0) instead of one list per collection */
  global: boolean;
  k1: number;
  b: number;
}

/** Lucene BM25 of one term, spelled out. */
function term(idf: number, tf: number, dl: number, avgdl: number, k1: number, b: number): number {
  const norm = k1 * (1 - b + (b * dl) / avgdl);
  return idf * ((tf * (k1 + 1)) / (tf + norm));
}

export function stats(c: OracleCorpus): { avgdl: number; idfs: number[]; df: number[] } {
  const n = c.chunks.length;
  const avgdl = c.chunks.reduce((s, x) => s + x.dl, 0) / n;
  const df = c.layouts.map((_, l) => c.chunks.filter((x) => x.tfs[l]! > 0).length);
  return { avgdl, df, idfs: df.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5))) };
}

/** Exhaustive BM25 of every chunk: the sum over the lexemes it holds. */
export function exhaustive(c: OracleCorpus): Map<number, number> {
  const { avgdl, idfs } = stats(c);
  return new Map(c.chunks.map((x) => [x.no, x.tfs.reduce((s, tf, l) => (tf > 0 ? s + term(idfs[l]!, tf, x.dl, avgdl, c.k1, c.b) : s), 0)]));
}

/** What `array_send(int8[])` returns for these postings: (no << 32) | (tf << 22) | dl each. */
function image(postings: OracleChunk[], l: number): Buffer {
  const buf = Buffer.alloc(20 + 12 * postings.length);
  buf.writeInt32BE(1, 0);
  buf.writeInt32BE(0, 4);
  buf.writeInt32BE(20, 8);
  buf.writeInt32BE(postings.length, 12);
  buf.writeInt32BE(1, 16);
  postings.forEach((x, i) => {
    buf.writeInt32BE(8, 20 + 12 * i);
    buf.writeInt32BE(x.no, 24 + 12 * i);
    buf.writeUInt32BE(((x.tfs[l]! << 22) | x.dl) >>> 0, 28 + 12 * i);
  });
  return buf;
}

function blocksOf<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

export interface Layout {
  rows: BlockRow[];
  /** each chunk's upper bound, for the chunks the rows show */
  bounds: Map<number, number>;
  /** the most any chunk the rows do not show can score, per group */
  unseenBound: Map<number, number>;
}

/** The block rows for the corpus, and the upper bounds MaxScore derives from them. */
export function layout(c: OracleCorpus): Layout {
  const { avgdl, idfs, df } = stats(c);
  const groupOf = (x: OracleChunk) => (c.global ? 0 : x.grp);
  const groups = [...new Set(c.chunks.map(groupOf))];
  const rows: BlockRow[] = [];
  const known = new Map<number, number>();
  const pruned: { grp: number; bound: number; read: Set<number> }[] = [];
  c.layouts.forEach((lay, l) => {
    if (!df[l]) return;
    const idf = idfs[l]!;
    rows.push({ kind: 0, lexeme: `l${l}`, idf, grp: 0, max_impact: 0, p: null, avgdl });
    for (const grp of groups) {
      const list = c.chunks.filter((x) => groupOf(x) === grp && x.tfs[l]! > 0);
      if (!list.length) continue;
      const impact = (x: OracleChunk) => term(1, x.tfs[l]!, x.dl, avgdl, c.k1, c.b);
      let read: OracleChunk[][];
      let maxImpact = 0;
      if (lay.essential) read = blocksOf(list, lay.blockSize).reverse();
      else {
        const blocks = blocksOf(
          [...list].sort((x, y) => impact(y) - impact(x) || x.no - y.no),
          lay.blockSize,
        );
        read = blocks.slice(0, Math.floor(lay.readShare * blocks.length));
        maxImpact = blocks.length > read.length ? impact(blocks[read.length]![0]!) : 0;
        pruned.push({ grp, bound: maxImpact * idf, read: new Set(read.flat().map((x) => x.no)) });
      }
      for (const x of read.flat()) known.set(x.no, (known.get(x.no) ?? 0) + term(idf, x.tfs[l]!, x.dl, avgdl, c.k1, c.b));
      const p = read.length ? Buffer.concat(read.map((b) => image(b, l))) : null;
      rows.push({ kind: lay.essential ? 1 : 2, lexeme: `l${l}`, idf, grp, max_impact: maxImpact, p, avgdl });
    }
  });
  const bounds = new Map<number, number>();
  for (const [no, score] of known) {
    const grp = groupOf(c.chunks.find((x) => x.no === no)!);
    bounds.set(no, score + pruned.filter((q) => q.grp === grp && !q.read.has(no)).reduce((s, q) => s + q.bound, 0));
  }
  const unseenBound = new Map(groups.map((g) => [g, pruned.filter((q) => q.grp === g).reduce((s, q) => s + q.bound, 0)]));
  return { rows, bounds, unseenBound };
}
