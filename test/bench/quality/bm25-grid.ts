// `bench:quality --bm25-grid`: how sensitive the text channel's ranking is to BM25's k1 and b.
// Each point rebuilds the index ordered for its pair (`reindexText`, as `docsift-daemon reindex`
// does, so pruning follows the pair) and runs the test queries in text mode through the search
// service in-process with BM25_K1/BM25_B set to the pair: nDCG@10 and R@100 over documents.
// The configured pair is restored at the end.
import { reindexText } from '../../../daemon/src/indexing/reindex.js';
import type { AppDeps, Caller } from '../../../daemon/src/types.js';
import { printTable } from '../lib/report.js';
import type { TestQuery } from './dataset.js';
import { scoreRun } from './metrics.js';
import { runInProcess } from './ours.js';
import type { ResultRow } from './report.js';

export interface GridPoint {
  k1: number;
  b: number;
  ndcg10: number;
  /** With graded gains (NFCorpus); undefined for binary qrels. */
  ndcg10Graded?: number;
  recall100: number;
  reindexMs: number;
}

/** The grid of docs/performance.md, "BM25 parameters on SciFact": {0.9, 1.2, 1.5} × {0.4, 0.75}, plus b 1.0 at the middle k1 and a low k1. */
export const DEFAULT_GRID = '0.9:0.4,0.9:0.75,1.2:0.4,1.2:0.75,1.5:0.4,1.5:0.75,0.6:0.4,1.2:1.0';

export function parseGrid(spec: string): { k1: number; b: number }[] {
  return spec.split(',').map((p) => {
    const [k1, b] = p.split(':').map(Number);
    if (!Number.isFinite(k1) || !Number.isFinite(b) || k1! < 0 || b! < 0 || b! > 1) throw new Error(`--bm25 point "${p}" is not k1:b`);
    return { k1: k1!, b: b! };
  });
}

export async function runBm25Grid(o: {
  deps: AppDeps;
  caller: Caller;
  collection: string;
  queries: TestQuery[];
  points: { k1: number; b: number }[];
  log: (line: string) => void;
}): Promise<GridPoint[]> {
  const out: GridPoint[] = [];
  const configured = { k1: o.deps.config.BM25_K1, b: o.deps.config.BM25_B };
  try {
    for (const p of o.points) {
      const r = await reindexText(o.deps.sql, p);
      const deps: AppDeps = { ...o.deps, config: { ...o.deps.config, BM25_K1: p.k1, BM25_B: p.b } };
      const run = await runInProcess(deps, o.caller, o.collection, o.queries, { label: `bm25 ${p.k1}/${p.b}`, mode: 'text' }, 100);
      const s = scoreRun(run.runs, o.queries, 100);
      out.push({ ...p, ndcg10: s.ndcg10, ndcg10Graded: s.ndcg10Graded, recall100: s.recall, reindexMs: r.ms });
      o.log(
        `  bm25 k1 ${p.k1} b ${p.b}: nDCG@10 ${s.ndcg10.toFixed(3)}${s.ndcg10Graded === undefined ? '' : ` (graded ${s.ndcg10Graded.toFixed(3)})`}, R@100 ${s.recall.toFixed(3)} (reindex ${(r.ms / 1000).toFixed(1)} s)`,
      );
    }
  } finally {
    await reindexText(o.deps.sql, configured);
  }
  return out;
}

export function printGrid(points: GridPoint[], configured: { k1: number; b: number }, peers: ResultRow[]): void {
  printTable(
    `BM25 k1 × b (text mode, in-process, index re-sorted for each pair; configured default ${configured.k1} / ${configured.b})`,
    ['system', 'k1', 'b', 'nDCG@10', 'graded', 'R@100'],
    [
      ...points.map((p) => [
        p.k1 === configured.k1 && p.b === configured.b ? 'docsift (default)' : 'docsift',
        p.k1,
        p.b,
        p.ndcg10.toFixed(3),
        p.ndcg10Graded?.toFixed(3),
        p.recall100.toFixed(3),
      ]),
      ...peers.map((r) => [`${r.system} (${r.label})`, '', '', r.ndcg10.toFixed(3), r.ndcg10_graded?.toFixed(3), r.recall100?.toFixed(3)]),
    ],
  );
}
