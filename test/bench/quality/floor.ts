// The hybrid relevance floor (search/relevance-floor.ts): how many results queries with nothing to find get in each
// mode, and what the floor costs real queries. The floor is chosen from where two unlabelled
// similarity distributions separate (top vector similarity of real SciFact claims outside the test
// split, against generated nonsense); the 300 labelled test queries only confirm nDCG@10 is unchanged.
import type { AppDeps, Caller } from '../../../daemon/src/types.js';
import { search } from '../../../daemon/src/search/service.js';
import type { ApiCall } from '../lib/http.js';
import { rng } from '../lib/prose.js';
import { printTable } from '../lib/report.js';
import type { TestQuery } from './dataset.js';
import { ndcgAt, scoreRun } from './metrics.js';
import { runHttp, runInProcess } from './ours.js';
import { excessZ, printMargins } from './floor-margin.js';
import type { Mode } from './peers/types.js';

/** Floors swept; 0 stands for "no floor" (cosine below 0 never ranks anyway). */
export const FLOOR_GRID = [0, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6];
export const NONSENSE_COUNT = 50;
/** Results asked per nonsense query (twice the API's default page). */
export const NONSENSE_LIMIT = 10;

/**
 * `n` queries with nothing to find, always the same: half pronounceable pseudo-words ("blorvent
 * quaxil"), half consonant clusters like the "zzqx", 1–3 words each. The text channel's
 * count shows whether any of them matched a real term by accident.
 */
export function nonsenseQueries(n = NONSENSE_COUNT, seed = 14): string[] {
  const rand = rng(seed); // seeded: every run asks the same nonsense
  const pick = (s: string) => s[Math.floor(rand() * s.length)]!;
  const syllable = () => pick('bdfgklmnprstvzqxj') + pick('aeiouy') + (rand() < 0.5 ? pick('rnlxvz') : '');
  const pseudo = () => Array.from({ length: 2 + Math.floor(rand() * 2) }, syllable).join('');
  const cluster = () => Array.from({ length: 4 + Math.floor(rand() * 3) }, () => pick('bcdfghjklmnpqrstvwxz')).join('');
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: 1 + Math.floor(rand() * 3) }, () => (i % 2 ? cluster() : pseudo())).join(' '),
  );
}

export interface CountRow {
  label: string;
  mode: Mode;
  minScore?: number;
  /** Results over all nonsense queries, and queries that got at least one. */
  results: number;
  nonEmpty: number;
}

/** How many results each nonsense query gets through the API. */
export async function countNonsense(
  api: ApiCall,
  collection: string,
  queries: string[],
  cfg: { label: string; mode: Mode; minScore?: number },
): Promise<CountRow> {
  let results = 0;
  let nonEmpty = 0;
  for (const query of queries) {
    const json: Record<string, unknown> = { query, collection, mode: cfg.mode, limit: NONSENSE_LIMIT };
    if (cfg.minScore !== undefined) json.min_score = cfg.minScore;
    const r = await api<{ count: number }>('POST', '/api/v1/search/', { json });
    if (r.status !== 200) throw new Error(`nonsense search "${query}": HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    results += r.body.count;
    if (r.body.count) nonEmpty++;
  }
  return { ...cfg, results, nonEmpty };
}

/** Each query's best vector similarity (in-process, vector mode, 1 result). */
export async function topSimilarities(deps: AppDeps, caller: Caller, collection: string, queries: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const query of queries) {
    const r = await search(deps, caller, { query: query.trim(), collection, limit: 1, mode: 'vector' });
    out.push(r.results[0]?.score ?? 0);
  }
  return out;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i]!;
}

/** Per-query nDCG@10 differences between two runs: how many queries moved, and the mean change. */
export function pairedChange(
  a: Map<string, string[]>,
  b: Map<string, string[]>,
  queries: readonly { id: string; relevant: ReadonlySet<string> }[],
): { changed: number; meanDelta: number } {
  let changed = 0;
  let sum = 0;
  for (const q of queries) {
    const d = ndcgAt(b.get(q.id) ?? [], q.relevant, 10) - ndcgAt(a.get(q.id) ?? [], q.relevant, 10);
    if (Math.abs(d) > 1e-12) changed++;
    sum += d;
  }
  return { changed, meanDelta: queries.length ? sum / queries.length : 0 };
}

export function printDistribution(rows: { label: string; values: number[] }[]): void {
  const qs = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99];
  printTable(
    'Best vector similarity per query (in-process, vector mode): where nonsense ends and real questions begin',
    ['queries', 'n', 'min', ...qs.map((q) => `p${Math.round(q * 100)}`), 'max'],
    rows.map(({ label, values }) => {
      const s = [...values].sort((x, y) => x - y);
      return [label, s.length, s[0]?.toFixed(3), ...qs.map((q) => quantile(s, q).toFixed(3)), s.at(-1)?.toFixed(3)];
    }),
  );
}

const f3 = (x: number) => x.toFixed(3);

/**
 * The whole study: nonsense counts per mode, the similarity distributions, and the floor sweep on the
 * test queries (nDCG@10 and R@50 through the API, R@100 in-process). `defaultFloor` is the model's.
 */
export async function runFloorStudy(o: {
  api: ApiCall;
  deps: AppDeps;
  caller: Caller;
  collection: string;
  testQueries: TestQuery[];
  otherQueries: string[];
  datasetTitle: string;
  defaultFloor: number | null;
  sweep: boolean;
  concurrency: number;
  log: (line: string) => void;
}) {
  const nonsense = nonsenseQueries();
  const counts: CountRow[] = [];
  for (const cfg of [
    { label: 'text', mode: 'text' as const },
    { label: 'vector', mode: 'vector' as const },
    { label: 'hybrid (default floor)', mode: 'hybrid' as const },
    { label: 'hybrid, min_score 0 (no floor at all)', mode: 'hybrid' as const, minScore: 0 },
    ...(o.defaultFloor === null
      ? []
      : [{ label: `vector, min_score ${o.defaultFloor}`, mode: 'vector' as const, minScore: o.defaultFloor }]),
  ])
    counts.push(await countNonsense(o.api, o.collection, nonsense, cfg));
  // Real questions (outside the test split when the dataset has them): how many get no hybrid result at all.
  const real = o.otherQueries.length ? o.otherQueries : o.testQueries.map((q) => q.text);
  const realLabel = o.otherQueries.length ? `${o.datasetTitle} queries outside the test split` : `${o.datasetTitle} test queries`;
  const realHybrid = await countNonsense(o.api, o.collection, real, { label: `${realLabel} (hybrid, default floor)`, mode: 'hybrid' });
  printTable(
    `${nonsense.length} nonsense queries (e.g. "${nonsense[0]}", "${nonsense[1]}"), limit ${NONSENSE_LIMIT}: results returned`,
    ['mode', 'results', 'queries with any'],
    counts.map((c) => [c.label, c.results, `${c.nonEmpty}/${nonsense.length}`]),
  );
  o.log(`  ${realLabel}: ${real.length - realHybrid.nonEmpty} of ${real.length} get no hybrid result (default floor)`);
  o.log('measuring how far each query’s best vector hit stands above the background …');
  const margins = printMargins([
    { label: 'nonsense', values: await excessZ(o.deps, o.caller, o.collection, nonsense) },
    { label: realLabel, values: await excessZ(o.deps, o.caller, o.collection, real) },
  ]);

  o.log('measuring the best vector similarity of every query …');
  const sims = {
    nonsense: await topSimilarities(o.deps, o.caller, o.collection, nonsense),
    other: await topSimilarities(o.deps, o.caller, o.collection, o.otherQueries),
    test: await topSimilarities(
      o.deps,
      o.caller,
      o.collection,
      o.testQueries.map((q) => q.text),
    ),
  };
  printDistribution([
    { label: 'nonsense (generated)', values: sims.nonsense },
    { label: `${o.datasetTitle} queries outside the test split`, values: sims.other },
    { label: `${o.datasetTitle} test queries`, values: sims.test },
  ]);

  const base = await runHttp(o.api, o.collection, o.testQueries, { label: 'no floor', mode: 'hybrid', minScore: 0 }, o.concurrency);
  const def = await runHttp(o.api, o.collection, o.testQueries, { label: 'default', mode: 'hybrid' }, o.concurrency);
  const unchanged = {
    ndcg10_no_floor: scoreRun(base.runs, o.testQueries, 50).ndcg10,
    ndcg10_default_floor: scoreRun(def.runs, o.testQueries, 50).ndcg10,
    ...pairedChange(base.runs, def.runs, o.testQueries),
  };
  o.log(
    `  hybrid nDCG@10 without a floor ${f3(unchanged.ndcg10_no_floor)}, with the default floor (${o.defaultFloor}) ${f3(unchanged.ndcg10_default_floor)}; ` +
      `${unchanged.changed} of ${o.testQueries.length} queries changed (mean Δ ${unchanged.meanDelta.toFixed(4)})`,
  );

  const sweep: Record<string, number>[] = [];
  if (o.sweep) {
    for (const f of FLOOR_GRID) {
      const http = await runHttp(o.api, o.collection, o.testQueries, { label: `floor ${f}`, mode: 'hybrid', minScore: f }, o.concurrency);
      const deep = await runInProcess(
        o.deps,
        o.caller,
        o.collection,
        o.testQueries,
        { label: `floor ${f}`, mode: 'hybrid', minScore: f },
        100,
      );
      const s50 = scoreRun(http.runs, o.testQueries, 50);
      const nonsenseHybrid = await countNonsense(o.api, o.collection, nonsense, { label: '', mode: 'hybrid', minScore: f });
      sweep.push({
        floor: f,
        ndcg10: s50.ndcg10,
        recall50: s50.recall,
        recall100: scoreRun(deep.runs, o.testQueries, 100).recall,
        changed_vs_no_floor: pairedChange(base.runs, http.runs, o.testQueries).changed,
        nonsense_results: nonsenseHybrid.results,
        nonsense_queries_with_results: nonsenseHybrid.nonEmpty,
        other_queries_above: sims.other.filter((x) => x >= f).length / sims.other.length,
        nonsense_above: sims.nonsense.filter((x) => x >= f).length / sims.nonsense.length,
      });
      o.log(`  floor ${f}: nDCG@10 ${f3(s50.ndcg10)}, nonsense results ${nonsenseHybrid.results}`);
    }
    printTable(
      `Hybrid relevance floor sweep (min_score; model default ${o.defaultFloor})`,
      ['floor', 'nDCG@10', 'R@50', 'R@100', 'queries changed', 'nonsense results', 'nonsense top-1 ≥ floor', 'other claims top-1 ≥ floor'],
      sweep.map((r) => [
        r.floor!,
        f3(r.ndcg10!),
        f3(r.recall50!),
        f3(r.recall100!),
        r.changed_vs_no_floor!,
        r.nonsense_results!,
        `${Math.round(r.nonsense_above! * 100)} %`,
        `${(r.other_queries_above! * 100).toFixed(1)} %`,
      ]),
    );
  }
  return {
    nonsense_queries: nonsense,
    nonsense_counts: counts,
    real_queries: { label: realLabel, n: real.length, zero_hybrid: real.length - realHybrid.nonEmpty },
    margins,
    top1_similarity: Object.fromEntries(
      Object.entries(sims).map(([k, v]) => {
        const s = [...v].sort((x, y) => x - y);
        return [
          k,
          {
            n: s.length,
            min: s[0],
            p1: quantile(s, 0.01),
            p5: quantile(s, 0.05),
            p50: quantile(s, 0.5),
            p95: quantile(s, 0.95),
            max: s.at(-1),
          },
        ];
      }),
    ),
    default_floor: o.defaultFloor,
    unchanged,
    sweep,
  };
}
