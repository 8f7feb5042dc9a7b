import type { Tx } from '../db/client.js';
import type { Candidate } from './fusion.js';
import { tagCondition, type SearchFilter } from './filters.js';
import { operatorFilter } from './query-filter.js';

/**
 * Budgeted-MaxScore BM25 tuning (measured on SciFact and a 100k-chunk corpus, see
 * test/bench/prototypes/bm25/README.md): rare query lexemes are read completely up to BUDGET
 * postings, common ones only through their top-K postings by impact per collection, and the best
 * M candidates by upper bound are scored exactly.
 */
export const BM25 = { budget: 5000, k: 100, m: 200 } as const;

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
    t as (
      select q.lexeme, d.df, ln(1 + (cs.n - d.df + 0.5) / (d.df + 0.5)) as idf
        from q cross join cs
       cross join lateral (
         select coalesce(sum(df), 0)::float8 as df from (
           select df from term_stats where collection_id = any(${ids}::uuid[]) and lexeme = q.lexeme
           union all
           select df from term_stats_delta where collection_id = any(${ids}::uuid[]) and lexeme = q.lexeme
         ) x
       ) d
       where d.df > 0
    ),
    tt as materialized (
      select lexeme, idf, (sum(df) over w <= ${BM25.budget} or row_number() over w = 1) as essential
        from t window w as (order by df, lexeme)
    ),
    ess as (
      select p.chunk_id, p.collection_id, max(p.doc_len) as doc_len,
             sum(tt.idf * p.tf * 1.9 / (p.tf + 0.9 * (0.6 + 0.4 * p.doc_len / cs.avgdl))) as s
        from tt cross join cs
        join chunk_postings p on p.collection_id = any(${ids}::uuid[]) and p.lexeme = tt.lexeme
       where tt.essential
       group by p.chunk_id, p.collection_id
    ),
    ck as materialized (
      select c.id as collection_id, greatest(16, ceil(${BM25.k} * coalesce(cn.n, 0) / nullif(cs.n, 0)))::int as k
        from unnest(${ids}::uuid[]) as c(id) left join cn on cn.collection_id = c.id cross join cs
    ),
    topk as materialized (
      select tt.lexeme, tt.idf, ck.collection_id, ck.k, p.chunk_id, p.doc_len, p.tf, p.impact
        from tt cross join ck
       cross join lateral (
         select chunk_id, doc_len, tf, impact from chunk_postings
          where collection_id = ck.collection_id and lexeme = tt.lexeme
          order by impact desc limit ck.k
       ) p
       where not tt.essential
    ),
    bounds as (
      select lexeme, collection_id, case when count(*) >= max(k) then max(idf) * min(impact) else 0 end as bound
        from topk group by lexeme, collection_id
    ),
    cbounds as (select collection_id, sum(bound) as total from bounds group by collection_id),
    cand as (
      select chunk_id, collection_id, max(doc_len) as doc_len, sum(es) as es, sum(ks) as ks, sum(cut) as cut, sum(seen) as seen
        from (
          select chunk_id, collection_id, doc_len, s as es, 0::float8 as ks, 0::float8 as cut, 0::float8 as seen from ess
          union all
          select chunk_id, collection_id, doc_len, 0, case when bound = 0 then s else 0 end, case when bound > 0 then s else 0 end, bound
            from (
              select k.chunk_id, k.collection_id, k.doc_len, b.bound,
                     k.idf * k.tf * 1.9 / (k.tf + 0.9 * (0.6 + 0.4 * k.doc_len / cs.avgdl)) as s
                from topk k join bounds b using (lexeme, collection_id) cross join cs
            ) x
        ) u
       group by chunk_id, collection_id
    ),
    top as (
      select c.chunk_id, c.collection_id, c.doc_len, c.es + c.ks as known
        from cand c left join cbounds b using (collection_id)
       order by c.es + c.ks + c.cut + coalesce(b.total, 0) - c.seen desc
       limit ${BM25.m}
    ),
    probe as (
      select top.chunk_id, sum(b.idf * p.tf * 1.9 / (p.tf + 0.9 * (0.6 + 0.4 * top.doc_len / cs.avgdl))) as s
        from top
        join (select bounds.*, tt.idf from bounds join tt using (lexeme) where bound > 0) b on b.collection_id = top.collection_id
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
