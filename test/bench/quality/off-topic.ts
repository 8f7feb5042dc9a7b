// Off-topic queries (quality/off-topic-queries.txt): real questions from domains the corpus does not
// cover. Each should get no hybrid result; the survivors are listed with their best hit so a person
// can check whether it is relevant after all. Also: the real test queries left with no result.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiCall } from '../lib/http.js';
import { printTable } from '../lib/report.js';
import type { TestQuery } from './dataset.js';
import type { RunOutput } from './ours.js';

export const OFF_TOPIC_FILE = path.join(import.meta.dirname, 'off-topic-queries.txt');
/** Results asked per off-topic query (twice the API's default page). */
const LIMIT = 10;

export function loadOffTopic(file = OFF_TOPIC_FILE): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

interface Hit {
  title: string;
  content: string;
  score: number;
  explain?: { text: { rank: number; score: number } | null; vector: { rank: number; score: number } | null };
}

export interface Survivor {
  query: string;
  count: number;
  top: { title: string; snippet: string; score: number; text: boolean; vector: boolean };
}

/** How many off-topic queries get any result in `mode`, and each survivor's best hit. */
export async function runOffTopic(api: ApiCall, collection: string, mode: 'hybrid' | 'text', queries = loadOffTopic()) {
  const survivors: Survivor[] = [];
  for (const query of queries) {
    const r = await api<{ count: number; results: Hit[] }>('POST', '/api/v1/search/', {
      json: { query, collection, mode, limit: LIMIT, explain: true },
    });
    if (r.status !== 200) throw new Error(`off-topic search "${query}": HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    const top = r.body.results[0];
    if (!top) continue;
    survivors.push({
      query,
      count: r.body.count,
      top: {
        title: top.title,
        snippet: top.content.replace(/\s+/g, ' ').slice(0, 160),
        score: top.score,
        text: !!top.explain?.text,
        vector: !!top.explain?.vector,
      },
    });
  }
  return { mode, queries: queries.length, with_results: survivors.length, survivors };
}

export function printOffTopic(rows: Awaited<ReturnType<typeof runOffTopic>>[]): void {
  printTable(
    `Off-topic queries (${rows[0]?.queries ?? 0}, test/bench/quality/off-topic-queries.txt), limit ${LIMIT}: queries with any result`,
    ['mode', 'queries with any result', 'share'],
    rows.map((r) => [r.mode, `${r.with_results}/${r.queries}`, `${((100 * r.with_results) / Math.max(1, r.queries)).toFixed(1)} %`]),
  );
  const hybrid = rows.find((r) => r.mode === 'hybrid');
  if (hybrid?.survivors.length) {
    printTable(
      'Off-topic survivors in hybrid mode (check by hand: is the best hit relevant?)',
      ['query', 'results', 'best hit', 'by'],
      hybrid.survivors.map((s) => [
        s.query,
        s.count,
        `${s.top.title.slice(0, 60)} — ${s.top.snippet.slice(0, 80)}`,
        [s.top.text ? 'text' : '', s.top.vector ? 'vector' : ''].filter(Boolean).join('+'),
      ]),
    );
  }
}

/** Test queries (clean) that a mode's run left with no result at all. */
export function noResultShare(runs: Record<string, RunOutput>, queries: readonly TestQuery[]) {
  return Object.entries(runs).map(([mode, run]) => {
    const empty = queries.filter((q) => !run.runs.get(q.id)?.length);
    return { mode, queries: queries.length, no_result: empty.length, examples: empty.slice(0, 10).map((q) => q.text) };
  });
}
