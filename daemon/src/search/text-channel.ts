import type { Config } from '../config.js';
import type { Tx } from '../db/client.js';
import { candidateList, type Candidate } from './fusion.js';
import { chunkScore, filteredTextCandidates, passesOperators } from './filtered-text.js';
import { tagCondition, type SearchFilter } from './filters.js';
import { operatorFilter } from './query-filter.js';
import { topCandidates, type BlockRow } from './text-maxscore.js';
import type { ExtraTerm } from './typo-tolerance.js';
import { textCoverage } from './evidence.js';

/**
 * BM25 parameters and budgeted-MaxScore tuning (measured on SciFact and a 100k-chunk corpus, see
 * daemon/src/search/text-index.md): rare query lexemes are read completely up to BUDGET
 * postings, common ones only through the top blocks of their impact-ordered lists (about K
 * postings), and the best M candidates by upper bound are scored exactly.
 *
 * The top blocks come from one of two indexes, chosen inside the statement (one-time filters, so
 * prepared generic plans stay valid for every scope):
 * - per collection ((lexeme, collection, impact)): each searched collection gets its own share of
 *   K, so a big tenant can never crowd a small one out; one index descent per collection;
 * - global ((lexeme, impact)), when several collections together hold at least GLOBAL_SHARE of all
 *   chunks: one descent per lexeme, skipping other tenants' blocks.
 *
 * k1 and b are settings (BM25_K1, BM25_B) and reach SQL as parameters of bm25_term(); the stored
 * impacts that order the lists follow the k1 and b of the last rebuild (index/bm25-params.ts).
 */
export const BM25 = { budget: 5000, k: 100, m: 200 } as const;
export const GLOBAL_SHARE = 0.25;
/** Blocks read per (lexeme, collection) list at most (the list's head holds its best 128 postings). */
const MAX_BLOCKS = 8;

/** What the text channel takes from the configuration. */
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
 * BM25 (Lucene IDF) over the searched collections' own statistics, so scores are exact for what
 * the caller can see and reveal nothing about other tenants. Plain words are OR-ed for ranking;
 * quoted phrases and -negations filter the candidates. Negated words never rank.
 *
 * Candidates are found through the blocks; each one's score is then computed from its own
 * tsvector (term frequencies of every query lexeme), so returned scores are exact whatever the
 * blocks hold (postings of deleted chunks are dropped by the join on chunks).
 *
 * Two statements: the first chooses the blocks (frequencies, idfs, which lists are essential,
 * which top blocks are read) and returns them; the daemon sums their postings per chunk and picks
 * the best M by upper bound (text-maxscore.ts: a few ns per posting there, about 1 µs in the SQL
 * executor); the second scores those M from their tsvectors.
 */
export async function textCandidates(
  tx: Tx,
  settings: TextSettings,
  query: string,
  f: SearchFilter,
  n: number,
  extra: readonly ExtraTerm[] = [],
): Promise<Candidate[]> {
  const filter = operatorFilter(query);
  const ids = f.collectionIds;
  const { k1, b } = settings;
  const blocks = await tx<BlockRow[]>`
    -- The searched collections, sent once as one text (as six parameters they were each parsed again: 50 uuids apiece over all collections).
    with ids as materialized (select string_to_array(${ids.join(',')}, ',')::uuid[] as a),
    -- Their numbers by text search configuration (the one their lists were built with, migration 117).
    lg as materialized (
      select coalesce(text_config, ${settings.textConfig}) as cfg, array_agg(no) as nos
        from collections where id = any((select a from ids)::uuid[]) group by 1
    ),
    -- The query parsed once per configuration; each lexeme is looked up only in the lists of the
    -- collections whose configuration produced it (nos). Extra terms (typo corrections) come with
    -- their own collections and a weight below 1 on their idf.
    q as materialized (
      select y.lexeme, array_agg(distinct y.n) as nos, max(y.w) as w
        from (
          select x.lexeme, n, 1::float8 as w
            from lg
           cross join lateral (
             select distinct replace(m[2], '''''', '''') as lexeme
               from regexp_matches(querytree(docsift_tsquery(lg.cfg, ${query})), '(!?)''((?:[^'']|'''')*)''', 'g') as m
              where m[1] = ''
           ) x
           cross join unnest(lg.nos) as n
          union all
          select e.lexeme, n, e.weight
            from jsonb_to_recordset(${tx.json(extra as never)}::jsonb) as e(lexeme text, nos int[], weight float8)
           cross join unnest(e.nos) as n
        ) y
       group by y.lexeme
    ),
    cn as (
      select collection_id, sum(n)::float8 as n, sum(len)::float8 as len
        from (
          select collection_id, n_chunks as n, total_len as len from collection_text_stats where collection_id = any((select a from ids)::uuid[])
          union all
          select collection_id, n_chunks, total_len from collection_text_stats_delta where collection_id = any((select a from ids)::uuid[])
        ) s
       group by collection_id
    ),
    cs as (select sum(n) as n, sum(len) / nullif(sum(n), 0) as avgdl from cn),
    g as materialized (
      select cardinality((select a from ids)) > 1
             and cs.n >= ${GLOBAL_SHARE} * greatest(cs.n, (select reltuples from pg_class where oid = 'chunks'::regclass)) as glob
        from cs
    ),
    t as (
      select q.lexeme, q.nos, d.df, q.w * ln(1 + (cs.n - d.df + 0.5) / (d.df + 0.5)) as idf
        from q cross join cs
       cross join lateral (
         select coalesce(sum(df), 0)::float8 as df from (
           select df from text_lists where not (select glob from g) and lexeme = q.lexeme and coll = any(q.nos)
           union all
           select df from text_lists where (select glob from g) and lexeme = q.lexeme and q.nos @> array[coll]
         ) x
       ) d
       where d.df > 0
    ),
    tt as materialized (
      select lexeme, nos, idf, (sum(df) over w <= ${BM25.budget} or row_number() over w = 1) as essential
        from t window w as (order by df, lexeme)
    ),
    ck as materialized (
      select c.no as grp, greatest(16, ceil(${BM25.k} * coalesce(cn.n, 0) / nullif(cs.n, 0)))::int as k
        from collections c left join cn on cn.collection_id = c.id cross join cs
       where c.id = any((select a from ids)::uuid[]) and not (select glob from g)
      union all
      select 0, ${BM25.k} from g where glob
    ),
    -- Common lexemes: each list's top blocks in impact order, read while fewer than k postings
    -- are seen. The first block left unread bounds every posting not seen (blocks are sorted
    -- inside, and a list's head holds its best postings).
    heads as (
      select tt.lexeme, tt.idf, ck.grp, h.max_impact, h.postings, h.seen < ck.k and h.rn <= ${MAX_BLOCKS} as read
        from tt cross join ck
       cross join lateral (
         select bk.max_impact, bk.postings, row_number() over w as rn,
                coalesce(sum(bk.df) over (w rows between unbounded preceding and 1 preceding), 0) as seen
           from (
             -- Each table on its own: an ordered index scan stops after a few rows (through the
             -- union view the planner would fetch and sort every block of the lexeme).
             (select max_impact, df, postings from text_blocks
               where ck.grp <> 0 and coll = ck.grp and lexeme = tt.lexeme and df > 0
               order by max_impact desc limit ${MAX_BLOCKS + 1})
             union all
             (select max_impact, df, postings from text_fresh
               where ck.grp <> 0 and coll = ck.grp and lexeme = tt.lexeme and df > 0
               order by max_impact desc limit ${MAX_BLOCKS + 1})
             union all
             -- "@>" is not indexable by btree: these branches walk the global (lexeme, impact) lists.
             (select max_impact, df, postings from text_blocks
               where ck.grp = 0 and lexeme = tt.lexeme and df > 0 and tt.nos @> array[coll]
               order by max_impact desc limit ${MAX_BLOCKS + 1})
             union all
             (select max_impact, df, postings from text_fresh
               where ck.grp = 0 and lexeme = tt.lexeme and df > 0 and tt.nos @> array[coll]
               order by max_impact desc limit ${MAX_BLOCKS + 1})
           ) bk
         window w as (order by bk.max_impact desc)
       ) h
       where not tt.essential and (ck.grp = 0 or ck.grp = any(tt.nos))
    )
    -- Every query lexeme with its idf; per rare lexeme and group, its complete lists (exact
    -- contributions); per common lexeme and group, the impact of its first unread block (0: read
    -- to the end) and the blocks read. Postings travel as concatenated array_send() images, one
    -- row per list instead of one per block, and are summed per chunk in the daemon (text-maxscore.ts).
    select 0 as kind, tt.lexeme, tt.idf, 0 as grp, 0::float8 as max_impact, null::bytea as p, cs.avgdl
      from tt cross join cs
    union all
    -- Query lexemes the searched collections do not hold, with the idf of a lexeme no chunk holds.
    select 3, q.lexeme, ln(1 + (cs.n + 0.5) / 0.5), 0, 0::float8, null::bytea, cs.avgdl
      from q cross join cs
     where q.w = 1 and not exists (select 1 from t where t.lexeme = q.lexeme)
    union all
    select 1, tt.lexeme, tt.idf, e.grp, 0, e.p, cs.avgdl
      from tt cross join cs
     cross join lateral (
       select case when (select glob from g) then 0 else bl.coll end as grp, string_agg(array_send(bl.postings), ''::bytea) as p
         from text_lists bl
        where bl.lexeme = tt.lexeme and bl.coll = any(tt.nos) and bl.df > 0
        group by 1
     ) e
     where tt.essential
    union all
    select 2, h.lexeme, max(h.idf), h.grp, coalesce(max(h.max_impact) filter (where not h.read), 0)::float8,
           string_agg(array_send(h.postings), ''::bytea) filter (where h.read), max(cs.avgdl)
      from heads h cross join cs
     group by h.lexeme, h.grp`;
  // Phrases and negations, parsed once per searched collection with its configuration.
  const operators = () =>
    filter
      ? tx`fq as materialized (select id, docsift_tsquery(coalesce(text_config, ${settings.textConfig}), ${filter}) as tq from collections where id = any((select a from ids)::uuid[])),`
      : undefined;
  // The query's idf weight: its lexemes the collections hold, and those they do not (each at a
  // no-chunk idf) unless a correction stands in for it. A candidate's coverage is its share of it;
  // `matched` arrives as the idf weight it holds.
  const replaced = new Set(extra.map((e) => e.replaces));
  const weight = blocks.reduce((s, r) => s + (r.kind === 0 || (r.kind === 3 && !replaced.has(r.lexeme)) ? r.idf : 0), 0);
  const covering = (list: Candidate[]) => {
    for (const c of list) textCoverage(c, weight);
    return list;
  };
  const pruned = covering(await prunedCandidates());
  const terms = blocks.filter((r) => r.kind === 0);
  // A filter that left the pruned path short: few enough passing chunks are all scored.
  if (f.where && terms.length && pruned.length < n) {
    const exact = await filteredTextCandidates(
      tx,
      f,
      { lexemes: terms.map((r) => r.lexeme), idfs: terms.map((r) => r.idf), avgdl: terms[0]!.avgdl },
      { k1, b, m: BM25.m, n, operators: operators() },
    );
    if (exact) return covering(exact);
  }
  return pruned;

  async function prunedCandidates(): Promise<Candidate[]> {
    const { nos, dls, lexemes, idfs } = topCandidates(blocks, BM25.m, settings);
    if (!nos.length) return [];
    // Candidates and collection ids travel as short texts: postgres.js escapes an array parameter element by element.
    const [row] = await tx<{ ids: string | null; scores: string | null; matched: string | null }[]>`
    with ids as materialized (select string_to_array(${ids.join(',')}, ',')::uuid[] as a),
    ${operators() ?? tx``}
    p as materialized (select ${lexemes}::text[] as lexemes, ${idfs}::float8[] as idfs, ${blocks[0]!.avgdl}::float8 as avgdl)
    select string_agg(s.chunk_id::text, ',' order by s.score desc, s.chunk_id) as ids,
           string_agg(s.score::text, ',' order by s.score desc, s.chunk_id) as scores,
           string_agg(s.matched::text, ',' order by s.score desc, s.chunk_id) as matched
      from (
        select c.id as chunk_id, s.score, s.matched
          from unnest(string_to_array(${nos.join(',')}, ',')::int[], string_to_array(${dls.join(',')}, ',')::int[]) as top(no, dl)
          join chunks c on c.no = top.no and c.collection_id = any((select a from ids)::uuid[])
         cross join p
         cross join lateral ${chunkScore(tx, tx`top.dl`, k1, b)}
         where true
          ${filter ? passesOperators(tx) : tx``}
          ${tagCondition(tx, f)}
         order by s.score desc, c.id
         limit ${n}
      ) s`;
    return candidateList(row?.ids ?? null, row?.scores ?? null, row?.matched ?? null);
  }
}
