import type { Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';
import { type Conditions, idsCte, indexChunks } from './conditions.js';
import type { BlockRow } from './text-maxscore.js';
import { segmentQuery } from '../text/segment.js';
import type { ExtraTerm } from './typo-tolerance.js';

/**
 * Budgeted-MaxScore tuning (measured on SciFact and a 100k-chunk corpus, see
 * daemon/src/search/text-index.md): rare query lexemes are read completely up to `budget`
 * postings, common ones only through the top blocks of their impact-ordered lists (about `k`
 * postings), and the best `m` candidates by upper bound are scored exactly (text-channel.ts).
 */
export const BM25 = { budget: 5000, k: 100, m: 200 } as const;
/** Several collections holding at least this share of all chunks read the global lists. */
export const GLOBAL_SHARE = 0.25;
/** Blocks read per (lexeme, collection) list at most (the list's head holds its best 128 postings). */
const MAX_BLOCKS = 8;

/**
 * The `heads` CTE of readBlocks: for each common lexeme and group, its top blocks in impact order,
 * `read` while fewer than k postings are seen.
 */
function headsCte(tx: Tx) {
  return tx`
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
    )`;
}

/**
 * The text channel's first statement: it chooses the blocks (frequencies, idfs, which lists are
 * essential, which top blocks are read) and returns them, one row per list; the daemon sums their
 * postings per chunk (text-maxscore.ts topCandidates). Statistics are the searched collections'
 * own, so scores reveal nothing about other tenants.
 *
 * The top blocks come from one of two indexes, chosen inside the statement (one-time filters, so
 * prepared generic plans stay valid for every scope):
 * - per collection ((lexeme, collection, impact)): each searched collection gets its own share of
 *   k, so a big tenant can never crowd a small one out; one index descent per collection;
 * - global ((lexeme, impact)), when several collections together hold at least GLOBAL_SHARE of all
 *   chunks: one descent per lexeme, skipping other tenants' blocks.
 */
export function readBlocks(
  tx: Tx,
  textConfig: string,
  query: string,
  c: Conditions,
  extra: readonly ExtraTerm[] = [],
): Promise<BlockRow[]> {
  return withinTimeout(
    tx<BlockRow[]>`
    with ${idsCte(tx, c)}
    -- The collections' numbers by text search configuration (collections.text_config: the one their lists were built with).
    lg as materialized (
      select coalesce(text_config, ${textConfig}) as cfg, array_agg(no) as nos
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
               from regexp_matches(querytree(docsift_tsquery(lg.cfg, ${query}, ${segmentQuery(query)})), '(!?)''((?:[^'']|'''')*)''', 'g') as m
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
             and cs.n >= ${GLOBAL_SHARE} * greatest(cs.n, ${indexChunks(tx)}) as glob
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
    ${headsCte(tx)}
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
     group by h.lexeme, h.grp`,
    c.timeoutMs,
  );
}
