// Latency of the text-channel query on the synthetic multi-tenant corpus, plus agreement of
// pruned results with exhaustive BM25, plus SciFact quality as a small tenant of that corpus.
// Usage: node --import tsx bench-synth.ts [db=bm25_synth] [mode=all|latency|quality]
import { mkdirSync, writeFileSync } from 'node:fs';
import { bm25Search, connect, loadTestQueries, mean, ndcgAt10, percentile, recallAt, scifactCollection, uuidDoc } from './lib.js';

const db = process.argv[2] ?? 'bm25_synth';
const mode = process.argv[3] ?? 'all';
const sql = connect(db);
const queries = loadTestQueries();
const exhaustive = 1_000_000_000;

const sizes = await sql<{ id: string; n: number }[]>`
  select collection_id as id, n_chunks::int as n from collection_text_stats order by n_chunks desc`;
const synthIds = sizes.map((s) => s.id).filter((id) => id !== scifactCollection);
const big = sizes[0]?.id ?? '';
// A small tenant: the synthetic collection closest to 500 chunks.
const small = [...sizes].filter((s) => s.id !== scifactCollection).sort((a, b) => Math.abs(a.n - 500) - Math.abs(b.n - 500))[0];
const scenarios: Record<string, string[]> = {
  [`small (${small?.n} chunks)`]: [small?.id ?? ''],
  [`big (${sizes[0]?.n} chunks)`]: [big],
  [`all ${synthIds.length + 1} collections`]: sizes.map((s) => s.id),
};

interface Row {
  scenario: string;
  k: number;
  rescore: number;
  p50: number;
  p99: number;
  mean: number;
  overlap10?: number;
  overlap100?: number;
}
const rows: Row[] = [];

async function timeRun(ids: string[], k: number, rescore: number): Promise<{ ms: number[]; res: string[][] }> {
  for (const q of queries.slice(0, 30)) await bm25Search(sql, { q: q.text, ids, k, n: 100, rescore });
  const ms: number[] = [];
  const res: string[][] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const r = await bm25Search(sql, { q: q.text, ids, k, n: 100, rescore });
    ms.push(performance.now() - t0);
    res.push(r.map((x) => x.chunk_id));
  }
  return { ms, res };
}

const overlap = (a: string[], b: string[], n: number): number => {
  const s = new Set(b.slice(0, n));
  return a.slice(0, n).filter((x) => s.has(x)).length / Math.max(1, Math.min(n, b.length));
};

if (mode === 'all' || mode === 'latency') {
  const ks = (process.env.BM25_KS ?? '100,200,500,1000,2000').split(',').map(Number);
  const rescores = (process.env.BM25_RESCORE ?? '0').split(',').map(Number);
  for (const [name, ids] of Object.entries(scenarios)) {
    const ex = await timeRun(ids, exhaustive, 0);
    rows.push({
      scenario: name,
      k: Infinity,
      rescore: 0,
      p50: percentile(ex.ms, 50),
      p99: percentile(ex.ms, 99),
      mean: mean(ex.ms),
      overlap10: 1,
      overlap100: 1,
    });
    console.log(JSON.stringify(rows.at(-1)));
    for (const k of ks) {
      for (const rescore of rescores) {
        const r = await timeRun(ids, k, rescore);
        rows.push({
          scenario: name,
          k,
          rescore,
          p50: percentile(r.ms, 50),
          p99: percentile(r.ms, 99),
          mean: mean(r.ms),
          overlap10: mean(r.res.map((x, i) => overlap(x, ex.res[i] ?? [], 10))),
          overlap100: mean(r.res.map((x, i) => overlap(x, ex.res[i] ?? [], 100))),
        });
        console.log(JSON.stringify(rows.at(-1)));
      }
    }
  }
}

const quality: Record<string, unknown>[] = [];
if (mode === 'all' || mode === 'quality') {
  const all = sizes.map((s) => s.id);
  const variants: [string, string[], string[], number][] = [
    ['SciFact tenant, per-collection stats, exhaustive', [scifactCollection], [scifactCollection], exhaustive],
    ['SciFact tenant, per-collection stats, K=1000', [scifactCollection], [scifactCollection], 1000],
    ['SciFact tenant, global stats (all tenants), exhaustive', [scifactCollection], all, exhaustive],
    ['SciFact tenant, global stats (all tenants), K=1000', [scifactCollection], all, 1000],
  ];
  for (const [label, ids, statsIds, k] of variants) {
    const nd: number[] = [];
    const rc: number[] = [];
    for (const q of queries) {
      const r = (await bm25Search(sql, { q: q.text, ids, statsIds, k, n: 100 })).map((x) => uuidDoc(x.chunk_id));
      nd.push(ndcgAt10(r, q.relevant));
      rc.push(recallAt(r, q.relevant, 100));
    }
    quality.push({ label, ndcg10: mean(nd), recall100: mean(rc) });
    console.log(JSON.stringify(quality.at(-1)));
  }
}
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL(`./results/bench-${db}-${mode}-${process.env.BM25_TAG ?? 'default'}.json`, import.meta.url),
  JSON.stringify({ rows, quality }, null, 2),
);
await sql.end();
