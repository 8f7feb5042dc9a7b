// `--evidence-study`: when a hybrid query counts as on topic (search/evidence.ts): the chunk nearest in
// meaning is within `nearness` spreads of the median similarity of pairs of the scope's chunks, or a
// chunk holds at least `fullCoverage` of its idf weight, or at least `coverage` of it with the query's
// median similarity to the scope (`domain`) above that many spreads. Every query set runs once in-process with the
// judgement recorded but not applied (explain.evidence); each threshold pair is then applied as the
// service applies it (an off-topic query's answer is empty), and scored: test nDCG@10, test and other
// real queries left with no result, off-topic queries with any result. Chosen on SciFact and NFCorpus
// together, as the tokenization was.
import type { AppDeps, Caller } from '../../../daemon/src/types.js';
import { search } from '../../../daemon/src/search/service.js';
import { onTopic as judged, TOPIC, type TopicThresholds } from '../../../daemon/src/search/evidence.js';
import { printTable } from '../lib/report.js';
import { beirIdFromTags, type TestQuery } from './dataset.js';
import { dedupeDocs, scoreRun } from './metrics.js';

export const NEARNESS_GRID = [-1, -0.8, -0.6, -0.4, -0.2, 0];
export const DOMAIN_GRID = [-4.2, -4, -3.8, -3.6, -3.4, Number.POSITIVE_INFINITY];
export const COVERAGE_GRID = [0.3, 0.4, 0.5, 0.55, 0.6];
export const FULL_COVERAGE_GRID = [0.8, 0.9, 1, Number.POSITIVE_INFINITY];

/**
 * The points scored: nearness × domain at the coverages in force, coverage × full coverage at the
 * nearness and domain in force, and the rule without the domain (coverage ≥ 0.55 or nearness ≥ −0.8).
 */
function gridPoints(): TopicThresholds[] {
  const points: TopicThresholds[] = [];
  for (const nearness of NEARNESS_GRID) for (const domain of DOMAIN_GRID) points.push({ ...TOPIC, nearness, domain });
  for (const coverage of COVERAGE_GRID) for (const fullCoverage of FULL_COVERAGE_GRID) points.push({ ...TOPIC, coverage, fullCoverage });
  points.push({ coverage: 0.55, fullCoverage: 0.55, domain: Number.POSITIVE_INFINITY, nearness: -0.8 });
  const seen = new Set<string>();
  return points.filter((p) => {
    const key = JSON.stringify(p);
    return !seen.has(key) && !!seen.add(key);
  });
}

interface Judged {
  docs: (string | undefined)[];
  /** null: the vector channel could not judge (every match counts). */
  coverage: number;
  nearness: number | null;
  domain: number | null;
  judged: boolean;
}

async function judgeAll(deps: AppDeps, caller: Caller, collection: string, queries: string[]): Promise<Judged[]> {
  const out: Judged[] = [];
  for (const query of queries) {
    const r = await search(deps, caller, { query: query.trim(), collection, limit: 200, mode: 'hybrid', explain: true, judgeOnly: true });
    const e = r.explain?.evidence;
    out.push({
      docs: r.results.map((x) => beirIdFromTags(x.tags)),
      coverage: e?.coverage ?? 0,
      nearness: e?.nearness ?? null,
      domain: e?.domain ?? null,
      judged: !!e && ['coverage', 'nearness', 'off_topic'].includes(e.basis),
    });
  }
  return out;
}

const onTopic = (j: Judged, t: TopicThresholds) =>
  !j.judged ||
  judged({ coverage: j.coverage, nearness: j.nearness ?? Number.POSITIVE_INFINITY, domain: j.domain ?? Number.POSITIVE_INFINITY }, t).on;

export async function runEvidenceStudy(o: {
  deps: AppDeps;
  caller: Caller;
  collection: string;
  test: TestQuery[];
  other: string[];
  offTopic: string[];
  datasetTitle: string;
  log: (line: string) => void;
}) {
  o.log(`evidence study: ${o.test.length} test, ${o.other.length} other and ${o.offTopic.length} off-topic queries in hybrid mode …`);
  const test = await judgeAll(
    o.deps,
    o.caller,
    o.collection,
    o.test.map((q) => q.text),
  );
  const other = await judgeAll(o.deps, o.caller, o.collection, o.other);
  const off = await judgeAll(o.deps, o.caller, o.collection, o.offTopic);
  const rows = gridPoints().map((t) => {
    const runs = new Map(o.test.map((q, i) => [q.id, onTopic(test[i]!, t) ? dedupeDocs(test[i]!.docs) : []]));
    const s = scoreRun(runs, o.test, 100);
    const empty = (js: Judged[]) => js.filter((j) => !j.docs.length || !onTopic(j, t)).length;
    return {
      ...t,
      in_force: (Object.keys(t) as (keyof TopicThresholds)[]).every((k) => t[k] === TOPIC[k]),
      ndcg10: s.ndcg10,
      ndcg10_graded: s.ndcg10Graded,
      test_no_result: empty(test),
      other_no_result: empty(other),
      off_topic_with_result: off.length - empty(off),
    };
  });
  const none = scoreRun(new Map(o.test.map((q, i) => [q.id, dedupeDocs(test[i]!.docs)])), o.test, 100);
  printTable(
    `Hybrid evidence (${o.datasetTitle}, in-process, limit 200): on topic when the nearest chunk is ≥ nearness spreads from the median pair, or a chunk holds ≥ full of the query's idf weight, or ≥ coverage of it with the query's median similarity ≥ domain spreads (∞: off); without the rule nDCG@10 ${none.ndcg10.toFixed(4)}`,
    ['nearness', 'domain', 'coverage', 'full', 'test nDCG@10', 'graded', 'test no result', 'other no result', 'off-topic with any'],
    rows.map((r) => [
      `${r.nearness}${r.in_force ? ' *' : ''}`,
      r.domain,
      r.coverage,
      r.fullCoverage,
      r.ndcg10.toFixed(4),
      r.ndcg10_graded?.toFixed(4),
      `${r.test_no_result}/${o.test.length}`,
      `${r.other_no_result}/${o.other.length}`,
      `${r.off_topic_with_result}/${o.offTopic.length}`,
    ]),
  );
  return {
    without_rule: { ndcg10: none.ndcg10, ndcg10_graded: none.ndcg10Graded },
    grid: rows,
    queries: { test: o.test.length, other: o.other.length, off_topic: o.offTopic.length },
    off_topic: o.offTopic.map((q, i) => ({
      query: q,
      coverage: off[i]!.coverage,
      nearness: off[i]!.nearness,
      domain: off[i]!.domain,
      results: off[i]!.docs.length,
    })),
  };
}
