import type { Config } from '../config.js';
import type { Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';
import { chunkConditions, type Conditions, type Fragment, fewPassingCtes, scopeCtes } from './conditions.js';
import { candidateList, type Candidate } from './fusion.js';
import { type Operators, operatorsCte, passesOperators, queryOperators } from './operators.js';
import { BM25, readBlocks } from './text-blocks.js';
import { type BlockRow, topCandidates } from './text-maxscore.js';
import type { ExtraTerm } from './typo-tolerance.js';
import { textCoverage } from './evidence.js';

/**
 * What the text channel takes from the configuration. k1 and b are settings (BM25_K1, BM25_B) and
 * reach SQL as parameters of bm25_term(); the stored impacts that order the lists follow the k1
 * and b of the last rebuild (indexing/bm25-params.ts).
 */
export interface TextSettings {
  /** PostgreSQL text search configuration of collections without their own (TEXT_SEARCH_CONFIG). */
  textConfig: string;
  k1: number;
  b: number;
}

export function textSettings(config: Pick<Config, 'TEXT_SEARCH_CONFIG' | 'BM25_K1' | 'BM25_B'>): TextSettings {
  return { textConfig: config.TEXT_SEARCH_CONFIG, k1: config.BM25_K1, b: config.BM25_B };
}

/**
 * The text channel: the best `n` chunks by BM25 (Lucene IDF) over the searched collections' own
 * statistics, among those the conditions let through. Plain words are OR-ed for ranking; quoted
 * phrases and -negations filter the candidates (operators.ts); negated words never rank.
 *
 * Candidates are found through the blocks (text-blocks.ts, then text-maxscore.ts: the best M by
 * upper bound); each one's score is then computed from its own tsvector, so returned scores are
 * exact whatever the blocks hold (postings of deleted chunks are dropped by the join on chunks).
 *
 * Its one choice of variant is here: the pruned path always, and under a filter that left it
 * short, the exhaustive one over the passing chunks when they are few enough (exhaustiveCandidates).
 *
 * `extra` terms (typo corrections, typo-tolerance.ts) rank beside the query's own lexemes at their
 * weight. Each candidate carries its coverage: its share of the query's idf weight (evidence.ts),
 * counting the query's lexemes the collections hold and those they do not (at a no-chunk idf)
 * unless a correction stands in for it.
 */
export async function textCandidates(
  tx: Tx,
  settings: TextSettings,
  query: string,
  c: Conditions,
  n: number,
  extra: readonly ExtraTerm[] = [],
): Promise<Candidate[]> {
  const blocks = await readBlocks(tx, settings.textConfig, query, c, extra);
  const replaced = new Set(extra.map((e) => e.replaces));
  const weight = blocks.reduce((s, r) => s + (r.kind === 0 || (r.kind === 3 && !replaced.has(r.lexeme)) ? r.idf : 0), 0);
  const covering = (list: Candidate[]) => {
    for (const x of list) textCoverage(x, weight);
    return list;
  };
  const operators = queryOperators(query);
  const pruned = covering(await prunedCandidates(tx, blocks, { settings, c, n, operators }));
  const terms = blocks.filter((r) => r.kind === 0);
  if (!c.passes || !terms.length || pruned.length >= n) return pruned;
  const scoring = { lexemes: terms.map((r) => r.lexeme), idfs: terms.map((r) => r.idf), avgdl: terms[0]!.avgdl };
  const exact = await exhaustiveCandidates(tx, scoring, { settings, c, n, operators });
  return exact ? covering(exact) : pruned;
}

/** What both scoring statements take besides their terms. */
interface ScoringContext {
  settings: TextSettings;
  c: Conditions;
  n: number;
  /** The query's operator part (undefined when none). */
  operators: Operators | undefined;
}

/** The query's lexemes with their idf over the searched collections, and the mean chunk length. */
interface QueryTerms {
  lexemes: string[];
  idfs: number[];
  avgdl: number;
}

/**
 * A chunk `c`'s BM25 score, exact: its tsvector's query lexemes (CTE `p`: lexemes, idfs, avgdl)
 * through bm25_term() at length `dl`; and the idf weight of those lexemes (`matched`, for the
 * query's coverage). A lateral subquery `s` (score, matched): both scoring statements score alike.
 */
function chunkScore(tx: Tx, dl: Fragment, s: TextSettings): Fragment {
  return tx`(select coalesce(sum(bm25_term(p.idfs[array_position(p.lexemes, x.lexeme)], coalesce(cardinality(x.positions), 1), ${dl}, p.avgdl, ${s.k1}, ${s.b})), 0)::float8 as score,
                    coalesce(sum(p.idfs[array_position(p.lexemes, x.lexeme)]), 0)::float8 as matched
                  from unnest(ts_filter(setweight(c.tsv, 'A', p.lexemes), '{a}')) x) s`;
}

/** The three lists a scoring statement returns: chunk ids, scores and matched weights, in score order. */
type ScoredRow = { ids: string | null; scores: string | null; matched: string | null };

/**
 * The pruned path: the best M chunks by upper bound (text-maxscore.ts: summing postings costs a few
 * ns each there, about 1 µs in the SQL executor), scored exactly from their tsvectors, the best
 * `n` kept. Candidates and collection ids travel as short texts: postgres.js escapes an array
 * parameter element by element.
 */
async function prunedCandidates(tx: Tx, blocks: BlockRow[], x: ScoringContext): Promise<Candidate[]> {
  const { nos, dls, lexemes, idfs } = topCandidates(blocks, BM25.m, x.settings);
  if (!nos.length) return [];
  const [row] = await withinTimeout(
    tx<ScoredRow[]>`
    with ${scopeCtes(tx, x.c)}
    ${x.operators ? operatorsCte(tx, x.settings.textConfig, x.operators) : tx``}
    p as materialized (select ${lexemes}::text[] as lexemes, ${idfs}::float8[] as idfs, ${blocks[0]!.avgdl}::float8 as avgdl)
    select string_agg(s.chunk_id::text, ',' order by s.score desc, s.chunk_id) as ids,
           string_agg(s.score::text, ',' order by s.score desc, s.chunk_id) as scores,
           string_agg(s.matched::text, ',' order by s.score desc, s.chunk_id) as matched
      from (
        select c.id as chunk_id, s.score, s.matched
          from unnest(string_to_array(${nos.join(',')}, ',')::int[], string_to_array(${dls.join(',')}, ',')::int[]) as top(no, dl)
          join chunks c on c.no = top.no and c.collection_id = any((select a from ids)::uuid[])
         cross join p
         cross join lateral ${chunkScore(tx, tx`top.dl`, x.settings)}
         where true
          ${x.operators ? passesOperators(tx) : tx``}
          ${chunkConditions(tx, x.c)}
         order by s.score desc, c.id
         limit ${x.n}
      ) s`,
    x.c.timeoutMs,
  );
  return candidateList(row?.ids ?? null, row?.scores ?? null, row?.matched ?? null);
}

/**
 * Scoring every passing chunk costs 20-50 µs each (its tsvector read, tested, measured and scored):
 * 9,644 passing chunks at 1M made hybrid search 200 ms at p50 against 43 ms for the vector channel
 * alone; 985 at 100k, 56 ms against 15 ms with other benchmarks running (npm run bench:search --
 * --million, 1 % filter). Past this many the pruned path answers alone.
 */
export const EXACT_MAX_CHUNKS = 500;

/**
 * The exhaustive path, under a selective filter: BM25 over every chunk of the passing documents, so
 * a common word read through its best blocks only cannot leave them out (with a filter passing 12
 * of 3,000 chunks, the pruned path found 1; test/search.filter-text.test.ts). Taken when at most
 * EXACT_MAX_CHUNKS chunks pass and n² ≤ 2·M·N (fewPassingCtes, M = 200 candidates scored exactly).
 * Their tsvectors are tested against the OR of the query's lexemes and scored only where one
 * occurs, with the pruned path's idf, length and bm25_term(). Undefined: too many pass, keep the
 * pruned path's answer.
 */
async function exhaustiveCandidates(tx: Tx, terms: QueryTerms, x: ScoringContext): Promise<Candidate[] | undefined> {
  const [row] = await withinTimeout(
    tx<(ScoredRow & { exact: boolean })[]>`
    with ${scopeCtes(tx, x.c)} ${fewPassingCtes(tx, BM25.m, EXACT_MAX_CHUNKS)}
    ${x.operators ? operatorsCte(tx, x.settings.textConfig, x.operators) : tx``}
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
         cross join lateral ${chunkScore(tx, tx`l.dl`, x.settings)}
         where (select yes from few) and c.tsv @@ p.tq
          ${x.operators ? passesOperators(tx) : tx``}
          ${x.c.tagged}
         order by s.score desc, c.id
         limit ${x.n}
      ) s`,
    x.c.timeoutMs,
  );
  if (!row?.exact) return undefined;
  return candidateList(row.ids, row.scores, row.matched);
}
