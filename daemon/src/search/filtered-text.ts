import type postgres from 'postgres';
import type { Tx } from '../db/client.js';
import { candidateList, type Candidate } from './fusion.js';
import { passingDocuments, tagsCondition, type SearchFilter } from './filters.js';

/** The query's lexemes with their idf over the searched collections, and the mean chunk length. */
export interface QueryTerms {
  lexemes: string[];
  idfs: number[];
  avgdl: number;
}

/**
 * A chunk `c`'s BM25 score, exact: its tsvector's query lexemes (CTE `p`: lexemes, idfs, avgdl)
 * through bm25_term() at length `dl`; and the idf weight of those lexemes (`matched`, for the
 * query's coverage). A lateral subquery `s` (score, matched). The pruned path and the exhaustive one
 * score alike.
 */
export function chunkScore(tx: Tx, dl: postgres.PendingQuery<postgres.Row[]>, k1: number, b: number) {
  return tx`(select coalesce(sum(bm25_term(p.idfs[array_position(p.lexemes, x.lexeme)], coalesce(cardinality(x.positions), 1), ${dl}, p.avgdl, ${k1}, ${b})), 0)::float8 as score,
                    coalesce(sum(p.idfs[array_position(p.lexemes, x.lexeme)]), 0)::float8 as matched
                  from unnest(ts_filter(setweight(c.tsv, 'A', p.lexemes), '{a}')) x) s`;
}

/** The query's phrases and negations (CTE `fq`, parsed per collection) hold for chunk `c`. */
export function passesOperators(tx: Tx) {
  return tx`and exists (select 1 from fq where fq.id = c.collection_id and c.tsv @@ fq.tq)`;
}

/**
 * Scoring every passing chunk costs 20-50 µs each (its tsvector read, tested, measured and scored):
 * 9,644 passing chunks at 1M made hybrid search 200 ms at p50 against 43 ms for the vector channel
 * alone; 985 at 100k, 56 ms against 15 ms with other benchmarks running (npm run bench:search --
 * --million, 1 % filter). Past this many the pruned path answers alone.
 */
export const EXACT_MAX_CHUNKS = 500;

/**
 * The text channel under a selective `filter`: exhaustive BM25 over the chunks of the documents that
 * pass it, so a common word read through its best blocks only cannot leave them out (with a filter
 * passing 12 of 3,000 chunks, the pruned path found 1; test/search.filter-text.test.ts).
 *
 * Taken when the pruned path came back short and at most EXACT_MAX_CHUNKS chunks pass (and
 * n² ≤ 2·M·N, N in the index, M = 200 candidates scored exactly; filters.ts passingDocuments). Their
 * tsvectors are tested against the OR of the query's lexemes and scored only where one occurs.
 * Returns undefined to say "keep the pruned path's answer". Scores are the pruned path's exactly:
 * the same idf, length and bm25_term().
 */
export async function filteredTextCandidates(
  tx: Tx,
  f: SearchFilter,
  terms: QueryTerms,
  opts: { k1: number; b: number; m: number; n: number; operators: postgres.PendingQuery<postgres.Row[]> | undefined },
): Promise<Candidate[] | undefined> {
  if (!f.where) return undefined;
  const { k1, b, m, n } = opts;
  const [row] = await tx<{ exact: boolean; ids: string | null; scores: string | null; matched: string | null }[]>`
    with ${passingDocuments(tx, f, m, EXACT_MAX_CHUNKS)}
    ${opts.operators ?? tx``}
    p as materialized (
      select ${terms.lexemes}::text[] as lexemes, ${terms.idfs}::float8[] as idfs, ${terms.avgdl}::float8 as avgdl,
             (select string_agg(quote_literal(l), ' | ') from unnest(${terms.lexemes}::text[]) l)::tsquery as tq
    )
    select (select yes from few) as exact,
           string_agg(s.chunk_id::text, ',' order by s.score desc, s.chunk_id) as ids,
           string_agg(s.score::text, ',' order by s.score desc, s.chunk_id) as scores,
           string_agg(s.matched::text, ',' order by s.score desc, s.chunk_id) as matched
      from (
        select c.id as chunk_id, s.score, s.matched
          from md join chunks c on c.document_id = md.id
         cross join p
         cross join lateral (select least((select coalesce(sum(coalesce(cardinality(x.positions), 1)), 0) from unnest(c.tsv) x), 4194303)::int as dl) l
         cross join lateral ${chunkScore(tx, tx`l.dl`, k1, b)}
         where (select yes from few) and c.tsv @@ p.tq
          ${opts.operators ? passesOperators(tx) : tx``}
          ${tagsCondition(tx, f)}
         order by s.score desc, c.id
         limit ${n}
      ) s`;
  if (!row?.exact) return undefined;
  return candidateList(row.ids, row.scores, row.matched);
}
