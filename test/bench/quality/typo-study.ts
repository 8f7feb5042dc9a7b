// `--typo-study`: the weight of a corrected word (search/typo-tolerance.ts CORRECTION_WEIGHT) on the
// clean test queries and on their seeded misspellings, text channel only, in-process: each query's
// corrections are found once, then the text channel runs with them at each weight (0: off).
import type { Sql } from '../../../daemon/src/db/client.js';
import { compileConditions } from '../../../daemon/src/search/conditions.js';
import { textCandidates, textSettings } from '../../../daemon/src/search/text-channel.js';
import { correctionTerms, findCorrections, type Correction } from '../../../daemon/src/search/typo-tolerance.js';
import type { AppDeps } from '../../../daemon/src/types.js';
import { printTable } from '../lib/report.js';
import { beirIdFromTags, type TestQuery } from './dataset.js';
import { dedupeDocs, scoreRun } from './metrics.js';
import { misspellQueries } from './typos.js';

export const WEIGHT_GRID = [0, 0.5, 0.65, 0.75, 0.8, 1];
export const READINGS_GRID = [1, 2];

async function docOfChunk(sql: Sql, collectionId: string): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; tags: string[] }[]>`
    select c.id, d.tags from chunks c join documents d on d.id = c.document_id where c.collection_id = ${collectionId}`;
  return new Map(rows.map((r) => [r.id, beirIdFromTags(r.tags) ?? '']));
}

export async function runTypoWeights(o: { deps: AppDeps; collectionId: string; queries: TestQuery[]; log: (line: string) => void }) {
  const sql = o.deps.sql;
  const settings = textSettings(o.deps.config);
  const docs = await docOfChunk(sql, o.collectionId);
  const scope = compileConditions(sql, { collectionIds: [o.collectionId] }, 60_000);
  const typos = misspellQueries(o.queries);
  const ids = new Set(typos.map((t) => t.id));
  // "clean, same": the misspelled queries spelled right, the figure their share is of.
  const sets = { clean: o.queries, 'clean, same': o.queries.filter((q) => ids.has(q.id)), typos: typos as TestQuery[] };
  const rows: { set: string; readings: number; weight: number; ndcg10: number; corrected: number; no_result: number }[] = [];
  for (const [name, queries] of Object.entries(sets))
    for (const readings of READINGS_GRID) {
      const found: Correction[][] = [];
      for (const q of queries) found.push(await findCorrections(sql, settings.textConfig, q.text, [o.collectionId], readings));
      for (const weight of WEIGHT_GRID) {
        if (!weight && readings > 1) continue;
        const runs = new Map<string, string[]>();
        for (const [i, q] of queries.entries()) {
          const extra = weight ? correctionTerms(found[i]!, weight) : [];
          const list = await textCandidates(sql, settings, q.text, scope, 200, extra);
          runs.set(q.id, dedupeDocs(list.map((c) => docs.get(c.chunkId))));
        }
        rows.push({
          set: name,
          readings,
          weight,
          ndcg10: scoreRun(runs, queries, 100).ndcg10,
          corrected: found.filter((c) => c.length).length,
          no_result: queries.filter((q) => !runs.get(q.id)?.length).length,
        });
      }
    }
  printTable(
    'Weight of a corrected word, text channel in-process (0: typo tolerance off)',
    ['queries', 'readings', 'weight', 'nDCG@10', 'queries corrected', 'no result'],
    rows.map((r) => [r.set, r.readings, r.weight, r.ndcg10.toFixed(4), r.corrected, r.no_result]),
  );
  return rows;
}
