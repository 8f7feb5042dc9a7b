// The background floor (search/relevance-floor.ts): how far each query's best vector hit stands above what the same
// query scores against a sample of the scope's chunks, in spreads beyond √(2 ln N), where the best
// of N unrelated chunks is expected. The margin is chosen where nonsense stops and real questions go on.
import { backgroundStats } from '../../../daemon/src/search/background.js';
import { FLOOR_MARGIN } from '../../../daemon/src/search/relevance-floor.js';
import { search } from '../../../daemon/src/search/service.js';
import type { AppDeps, Caller } from '../../../daemon/src/types.js';
import { printTable } from '../lib/report.js';
import { quantile } from './floor.js';

export const MARGIN_GRID = [0, 0.5, 1, 1.5, 2, 2.5, 3];

/** Per query: (best vector similarity − median) / spread − √(2 ln N). */
export async function excessZ(deps: AppDeps, caller: Caller, collection: string, queries: string[]): Promise<number[]> {
  const [col] = await deps.sql<{ id: string }[]>`select id from collections where slug = ${collection} limit 1`;
  if (!col) throw new Error(`no collection ${collection}`);
  const out: number[] = [];
  for (const query of queries) {
    const q = query.trim();
    const r = await search(deps, caller, { query: q, collection, limit: 1, mode: 'vector' });
    const top = r.results[0]?.score;
    if (top === undefined) continue;
    const v = await deps.queryCache.embed(deps.embedder, q);
    const bg = await deps.backgrounds.get((fn) => deps.reads.run(fn), [col.id], v.length);
    const { median, spread } = backgroundStats(v, bg.sample);
    out.push((top - median) / spread - Math.sqrt(2 * Math.log(Math.max(2, bg.chunks))));
  }
  return out;
}

export function printMargins(rows: { label: string; values: number[] }[]): Record<string, unknown> {
  const qs = [0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1];
  printTable(
    'Best vector hit above the background, in spreads beyond √(2 ln N) (the floor keeps a vector-only hit above FLOOR_MARGIN)',
    ['queries', 'n', ...qs.map((q) => `p${Math.round(q * 100)}`)],
    rows.map(({ label, values }) => {
      const s = [...values].sort((x, y) => x - y);
      return [label, s.length, ...qs.map((q) => quantile(s, q).toFixed(2))];
    }),
  );
  printTable(
    `Share of queries whose best vector hit clears the margin (in force: ${FLOOR_MARGIN})`,
    ['margin', ...rows.map((r) => r.label)],
    MARGIN_GRID.map((m) => [
      m,
      ...rows.map((r) => `${((r.values.filter((x) => x >= m).length / Math.max(1, r.values.length)) * 100).toFixed(1)} %`),
    ]),
  );
  return Object.fromEntries(rows.map((r) => [r.label, [...r.values].sort((x, y) => x - y).map((x) => Math.round(x * 1000) / 1000)]));
}
