// Interleaved comparison of query variants on the synthetic corpus: for each query every
// variant runs once, in rotating order, so background load on the shared 2-core box hits all
// variants alike. Agreement is measured against exhaustive BM25 (k1=0.9, b=0.4).
// Usage: VARIANTS='[{"name":"v","budget":5000,"k":100,"m":200}]' \
//   node --import tsx bench-variants.ts [db=bm25_synth] [scenario=big|small|all|scifact] [queries=300]
import { loadavg } from 'node:os';
import { appendFileSync, mkdirSync } from 'node:fs';
import { bm25Search, connect, loadTestQueries, mean, ndcgAt10, percentile, recallAt, scifactCollection, uuidDoc } from './lib.js';
import { bm25MaxScore, type MaxScoreOptions } from './maxscore-query.js';

type Variant = { name: string } & Partial<MaxScoreOptions> & { topk?: number; globalStats?: boolean };
const db = process.argv[2] ?? 'bm25_synth';
const scenario = process.argv[3] ?? 'big';
const nq = Number(process.argv[4] ?? 300);
const variants = JSON.parse(process.env.VARIANTS ?? '[]') as Variant[];
const sql = connect(db);
const queries = loadTestQueries().slice(0, nq);

const sizes = await sql<{ id: string; n: number }[]>`
  select collection_id as id, n_chunks::int as n from collection_text_stats order by n_chunks desc`;
const synth = sizes.filter((s) => s.id !== scifactCollection);
const smallest500 = [...synth].sort((a, b) => Math.abs(a.n - 500) - Math.abs(b.n - 500))[0];
const ids: string[] =
  scenario === 'big'
    ? [synth[0]?.id ?? '']
    : scenario === 'small'
      ? [smallest500?.id ?? '']
      : scenario === 'scifact'
        ? [scifactCollection]
        : sizes.map((s) => s.id);
const label = `${scenario} (${ids.length} collection(s), ${sizes.filter((s) => ids.includes(s.id)).reduce((a, s) => a + s.n, 0)} chunks)`;

const allIds = sizes.map((s) => s.id);
const run = (v: Variant, q: string) => {
  const statsIds = v.globalStats ? allIds : undefined; // IDF/avgdl over every tenant
  return v.topk !== undefined
    ? bm25Search(sql, { q, ids, k: v.topk, n: 100, statsIds })
    : bm25MaxScore(sql, { q, ids, budget: v.budget ?? 5000, k: v.k ?? 100, m: v.m ?? 200, n: 100, statsIds });
};

const all: Variant[] = [{ name: 'exhaustive', topk: 1_000_000_000 }, ...variants];
for (const q of queries.slice(0, 15)) for (const v of all) await run(v, q.text); // warm-up
const stats = all.map(() => ({ ms: [] as number[], o10: [] as number[], o100: [] as number[], nd: [] as number[], rc: [] as number[] }));
const load0 = loadavg()[0] ?? 0;
for (const [qi, q] of queries.entries()) {
  const res: string[][] = [];
  for (let j = 0; j < all.length; j++) {
    const vi = (j + qi) % all.length;
    const t0 = performance.now();
    const r = (await run(all[vi]!, q.text)).map((x) => x.chunk_id);
    stats[vi]!.ms.push(performance.now() - t0);
    res[vi] = r;
  }
  const ex = res[0] ?? [];
  all.forEach((_, vi) => {
    const r = res[vi] ?? [];
    const inter = (n: number) => {
      const s = new Set(ex.slice(0, n));
      return r.slice(0, n).filter((x) => s.has(x)).length / Math.max(1, Math.min(n, ex.length));
    };
    stats[vi]!.o10.push(inter(10));
    stats[vi]!.o100.push(inter(100));
    const docs = r.map(uuidDoc);
    stats[vi]!.nd.push(ndcgAt10(docs, q.relevant));
    stats[vi]!.rc.push(recallAt(docs, q.relevant, 100));
  });
}
const load1 = loadavg()[0] ?? 0;
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
console.log(`${label}; ${queries.length} queries; load avg ${load0.toFixed(1)} -> ${load1.toFixed(1)}`);
console.log('variant | p50 ms | p99 ms | mean ms | overlap@10 | overlap@100 | nDCG@10 | R@100');
all.forEach((v, vi) => {
  const s = stats[vi]!;
  const line = [
    v.name.padEnd(40),
    percentile(s.ms, 50).toFixed(1),
    percentile(s.ms, 99).toFixed(1),
    mean(s.ms).toFixed(1),
    mean(s.o10).toFixed(3),
    mean(s.o100).toFixed(3),
    scenario === 'scifact' ? mean(s.nd).toFixed(4) : '-',
    scenario === 'scifact' ? mean(s.rc).toFixed(4) : '-',
  ].join(' | ');
  console.log(line);
  appendFileSync(
    new URL('./results/variants.log', import.meta.url),
    `${new Date().toISOString()} ${db} ${label} load=${load0.toFixed(1)}/${load1.toFixed(1)} ${line}\n`,
  );
});
await sql.end();
