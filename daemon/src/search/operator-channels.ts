import type { Tx } from '../db/client.js';
import type { Fused } from './fusion.js';
import { operatorFilter } from './query-filter.js';
import { segmentQuery } from '../text/segment.js';

/**
 * The query's operators ("quoted phrases" must appear, -excluded words must not) hold for every
 * result, whichever channel found it. The text channel applies them in its own SQL; chunks only
 * the vector channel found are checked here against their tsvector, in one statement.
 */
export async function requireOperators(
  run: <T>(fn: (sql: Tx) => Promise<T>) => Promise<T>,
  textConfig: string,
  query: string,
  list: Fused[],
): Promise<{ kept: Fused[]; excluded: number }> {
  const filter = operatorFilter(query);
  const segmentedFilter = operatorFilter(segmentQuery(query));
  const unchecked = filter ? list.filter((c) => !c.text).map((c) => c.chunkId) : [];
  if (!unchecked.length) return { kept: list, excluded: 0 };
  // Parsed in each chunk's collection's language (collections.text_config, else the setting), as
  // the text channel parses it, so a stemmed exclusion matches the lexemes the chunk was indexed with.
  const rows = await run(
    (sql) => sql<{ id: string }[]>`
      select c.id from chunks c
        join collections col on col.id = c.collection_id
        cross join lateral (select docsift_tsquery(coalesce(col.text_config, ${textConfig}), ${filter}, ${segmentedFilter}) as q) q
       where c.id = any(string_to_array(${unchecked.join(',')}, ',')::uuid[])
         -- An operator part of stop words only (e.g. -the) has no lexeme and excludes nothing.
         and (numnode(q.q) = 0 or c.tsv @@ q.q)`,
  );
  const ok = new Set(rows.map((r) => r.id));
  const kept = list.filter((c) => c.text || ok.has(c.chunkId));
  return { kept, excluded: list.length - kept.length };
}
