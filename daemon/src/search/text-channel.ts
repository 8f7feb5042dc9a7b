import type { Tx } from '../db/client.js';
import type { Candidate } from './fusion.js';
import { tagCondition, type SearchFilter } from './filters.js';
import { operatorFilter } from './query-filter.js';

/**
 * Budgeted-MaxScore BM25 tuning (measured on SciFact and a 100k-chunk corpus, see
 * test/bench/prototypes/bm25/README.md): rare query lexemes are read completely up to BUDGET
 * postings, common ones only through their top-K postings by impact, and the best M candidates by
 * upper bound are scored exactly.
 *
 * The top-K lists come from one of two indexes, chosen inside the statement (one-time filters, so
 * prepared generic plans stay valid for every scope):
 * - per collection ((collection_id, lexeme, impact)): each searched collection gets its own top-K
 *   share, so a big tenant can never crowd a small one out; one index descent per collection;
 * - global ((lexeme, impact)), when several collections together hold at least GLOBAL_SHARE of all
 *   chunks: one descent per lexeme, skipping other tenants' postings, which costs at most about
 *   K / GLOBAL_SHARE rows. At 100k chunks in 50 collections this took the text channel from
 *   25 ms to 12-14 ms p50 (npm run bench:search).
 */
export const BM25 = { budget: 5000, k: 100, m: 200 } as const;
export const GLOBAL_SHARE = 0.25;
const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * BM25 (k1 = 0.9, b = 0.4, Lucene IDF) over the searched collections' own statistics, so scores
 * are exact for what the caller can see and reveal nothing about other tenants. Plain words are
 * OR-ed for ranking; quoted phrases and -negations filter the candidates. Negated words never rank.
 */
export async function textCandidates(tx: Tx, textConfig: string, query: string, f: SearchFilter, n: number): Promise<Candidate[]> {
  const filter = operatorFilter(query);
  const ids = f.collectionIds;
  const cfg = tx`${textConfig}::regconfig`;
  const needsChunk = Boolean(filter) || Boolean(f.tags?.length);
  const rows = await tx<{ chunk_id: string; score: number }[]>`
    with q as (
      select distinct replace(m[2], '''''', '''') as lexeme
        from regexp_matches(querytree(websearch_to_tsquery(${cfg}, ${query})), '(!?)''((?:[^'']|'''')*)''', 'g') as m
       where m[1] = ''
    ),
    cn as (
      select collection_id, sum(n)::float8 as n, sum(len)::float8 as len
        from (
          select collection_id, n_chunks as n, total_len as len from collection_text_stats where collection_id = any(${ids}::uuid[])
          union all
          select collection_id, n_chunks, total_len from collection_text_stats_delta where collection_id = any(${ids}::uuid[])
        ) s
       group by collection_id
    ),
    cs as (select sum(n) as n, sum(len) / nullif(sum(n), 0) as avgdl from cn),
    g as materialized (
      select cardinality(${ids}::uuid[]) > 1
             and cs.n >= ${GLOBAL_SHARE} * greatest(cs.n, (select reltuples from pg_class where oid = 'chunks'::regclass)) as glob
        from cs
    ),
    t as (
      select q.lexeme, d.df, ln(1 + (cs.n - d.df + 0.5) / (d.df + 0.5)) as idf
        from q cross join cs
       cross join lateral (
         select coalesce(sum(df), 0)::float8 as df from (
           select df from term_stats where not (select glob from g) and collection_id = any(${ids}::uuid[]) and lexeme = q.lexeme
           union all
           select df from term_stats where (select glob from g) and lexeme = q.lexeme and ${ids}::uuid[] @> array[collection_id]
           union all
           select df from term_stats_delta where lexeme = q.lexeme and collection_id = any(${ids}::uuid[])
         ) x
       ) d
       where d.df > 0
    ),
    tt as materialized (
      select lexeme, idf, (sum(df) over w <= ${BM25.budget} or row_number() over w = 1) as essential
        from t window w as (order by df, lexeme)
    ),
    -- Raw postings: cand sums them per chunk together with the top-K rows (one aggregation).
    ess as (
      select p.chunk_id, case when (select glob from g) then ${NIL}::uuid else p.collection_id end as grp, p.doc_len,
             tt.idf * p.tf * 1.9 / (p.tf + 0.9 * (0.6 + 0.4 * p.doc_len / cs.avgdl)) as s
        from tt cross join cs
        join chunk_postings p on p.collection_id = any(${ids}::uuid[]) and p.lexeme = tt.lexeme
       where tt.essential
    ),
    ck as materialized (
      select c.id as grp, greatest(16, ceil(${BM25.k} * coalesce(cn.n, 0) / nullif(cs.n, 0)))::int as k
        from unnest(${ids}::uuid[]) as c(id) left join cn on cn.collection_id = c.id cross join cs
       where not (select glob from g)
      union all
      select ${NIL}::uuid, ${BM25.k} from g where glob
    ),
    topk as materialized (
      select tt.lexeme, tt.idf, ck.grp, ck.k, p.chunk_id, p.doc_len, p.tf, p.impact
        from tt cross join ck
       cross join lateral (
         (select chunk_id, doc_len, tf, impact from chunk_postings
           where ck.grp <> ${NIL}::uuid and collection_id = ck.grp and lexeme = tt.lexeme
           order by impact desc limit ck.k)
         union all
         -- "@>" is not indexable by btree: this branch walks the global (lexeme, impact) list.
         (select chunk_id, doc_len, tf, impact from chunk_postings
           where ck.grp = ${NIL}::uuid and lexeme = tt.lexeme and ${ids}::uuid[] @> array[collection_id]
           order by impact desc limit ck.k)
       ) p
       where not tt.essential
    ),
    bounds as (
      select lexeme, grp, case when count(*) >= max(k) then max(idf) * min(impact) else 0 end as bound
        from topk group by lexeme, grp
    ),
    cbounds as (select grp, sum(bound) as total from bounds group by grp),
    cand as (
      select chunk_id, grp, max(doc_len) as doc_len, sum(es) as es, sum(ks) as ks, sum(cut) as cut, sum(seen) as seen
        from (
          select chunk_id, grp, doc_len, s as es, 0::float8 as ks, 0::float8 as cut, 0::float8 as seen from ess
          union all
          select chunk_id, grp, doc_len, 0, case when bound = 0 then s else 0 end, case when bound > 0 then s else 0 end, bound
            from (
              select k.chunk_id, k.grp, k.doc_len, b.bound,
                     k.idf * k.tf * 1.9 / (k.tf + 0.9 * (0.6 + 0.4 * k.doc_len / cs.avgdl)) as s
                from topk k join bounds b using (lexeme, grp) cross join cs
            ) x
        ) u
       group by chunk_id, grp
    ),
    top as (
      select c.chunk_id, c.grp, c.doc_len, c.es + c.ks as known
        from cand c left join cbounds b using (grp)
       order by c.es + c.ks + c.cut + coalesce(b.total, 0) - c.seen desc
       limit ${BM25.m}
    ),
    probe as (
      select top.chunk_id, sum(b.idf * p.tf * 1.9 / (p.tf + 0.9 * (0.6 + 0.4 * top.doc_len / cs.avgdl))) as s
        from top
        join (select bounds.*, tt.idf from bounds join tt using (lexeme) where bound > 0) b on b.grp = top.grp
       cross join cs
        join chunk_postings p on p.chunk_id = top.chunk_id and p.lexeme = b.lexeme
       group by top.chunk_id
    )
    select top.chunk_id, (top.known + coalesce(probe.s, 0))::float8 as score
      from top left join probe using (chunk_id)
      ${needsChunk ? tx`join chunks c on c.id = top.chunk_id` : tx``}
      ${filter ? tx`and c.tsv @@ websearch_to_tsquery(${cfg}, ${filter})` : tx``}
     where true ${needsChunk ? tagCondition(tx, f) : tx``}
     order by score desc, top.chunk_id
     limit ${n}`;
  return rows.map((r, i) => ({ chunkId: r.chunk_id, score: Number(r.score), rank: i + 1 }));
}
