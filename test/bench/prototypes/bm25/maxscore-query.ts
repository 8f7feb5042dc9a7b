// Text-channel query v2 ("budgeted MaxScore"): rare query lexemes are read completely,
// common ones only through their top-K postings by impact, then the best M candidates by
// upper bound are scored exactly by probing the (chunk_id, lexeme) primary key.
import type { Sql } from './lib.js';

export interface MaxScoreOptions {
  q: string;
  ids: string[]; // collections searched (visible to the caller)
  statsIds?: string[]; // collections whose statistics feed IDF/avgdl; defaults to ids
  budget: number; // max postings read completely (rarest lexemes first)
  k: number; // top postings per (collection, common lexeme)
  m: number; // candidates scored exactly
  n: number; // results returned
  filter?: string; // operatorFilter(q): phrases / negations applied to the candidates
  cfg?: string;
  explain?: boolean;
}

// BM25 parameters are fixed at Anserini's k1=0.9 b=0.4: chunk_postings.impact is computed with
// the same k1/b, and the pruning bounds rely on that.
// Returns the pending query itself (awaitable) so callers can also .describe() it.
export function bm25MaxScore(sql: Sql, o: MaxScoreOptions) {
  const statsIds = o.statsIds ?? o.ids;
  return sql<{ chunk_id: string; score: number }[]>`
    ${o.explain ? sql`explain (analyze, buffers, costs off)` : sql``}
    with q as (
      select distinct replace(m[1], '''''', '''') as lexeme
      from regexp_matches(querytree(websearch_to_tsquery(${o.cfg ?? 'english'}::regconfig, ${o.q})),
                          '''((?:[^'']|'''')*)''', 'g') as m
    ),
    cn as (
      select collection_id, sum(n)::float8 as n, sum(len)::float8 as len
      from (
        select collection_id, n_chunks as n, total_len as len
        from collection_text_stats where collection_id = any(${statsIds}::uuid[])
        union all
        select collection_id, n_chunks, total_len
        from collection_text_stats_delta where collection_id = any(${statsIds}::uuid[])
      ) s
      group by collection_id
    ),
    cs as (select sum(n) as n, sum(len) / nullif(sum(n), 0) as avgdl from cn),
    t as (
      select q.lexeme, d.df, ln(1 + (cs.n - d.df + 0.5) / (d.df + 0.5)) as idf
      from q cross join cs
      cross join lateral (
        select coalesce(sum(df), 0)::float8 as df
        from (
          select df from term_stats
          where collection_id = any(${statsIds}::uuid[]) and lexeme = q.lexeme
          union all
          select df from term_stats_delta
          where collection_id = any(${statsIds}::uuid[]) and lexeme = q.lexeme
        ) x
      ) d
      where d.df > 0
    ),
    tt as materialized (
      -- Rarest lexemes whose postings fit the budget are read completely (always at least one).
      select lexeme, idf, (sum(df) over w <= ${o.budget} or row_number() over w = 1) as essential
      from t window w as (order by df, lexeme)
    ),
    ess as (
      select p.chunk_id, p.collection_id, max(p.doc_len) as doc_len,
             sum(tt.idf * p.tf * 1.9 / (p.tf + 0.9 * (0.6 + 0.4 * p.doc_len / cs.avgdl))) as s
      from tt cross join cs
      join chunk_postings p on p.collection_id = any(${o.ids}::uuid[]) and p.lexeme = tt.lexeme
      where tt.essential
      group by p.chunk_id, p.collection_id
    ),
    ck as materialized (
      -- Per searched collection, how many postings of each common lexeme to read: a share of
      -- K proportional to its size, never fewer than 16, so small tenants keep their best.
      select c.id as collection_id,
             greatest(16, ceil(${o.k} * coalesce(cn.n, 0) / nullif(cs.n, 0)))::int as k
      from unnest(${o.ids}::uuid[]) as c(id) left join cn on cn.collection_id = c.id cross join cs
    ),
    topk as materialized (
      select tt.lexeme, tt.idf, ck.collection_id, ck.k, p.chunk_id, p.doc_len, p.tf, p.impact
      from tt cross join ck
      cross join lateral (
        select chunk_id, doc_len, tf, impact from chunk_postings
        where collection_id = ck.collection_id and lexeme = tt.lexeme
        order by impact desc
        limit ck.k
      ) p
      where not tt.essential
    ),
    bounds as (
      -- Most a posting missing from a cut (lexeme, collection) list can add.
      select lexeme, collection_id,
             case when count(*) >= max(k) then max(idf) * min(impact) else 0 end as bound
      from topk group by lexeme, collection_id
    ),
    cbounds as (select collection_id, sum(bound) as total from bounds group by collection_id),
    cand as (
      -- es: essential lexemes (exact). ks: common lexemes whose list was not cut (exact).
      -- cut: contributions seen in cut lists; seen: their bounds (upper-bound bookkeeping only).
      select chunk_id, collection_id, max(doc_len) as doc_len,
             sum(es) as es, sum(ks) as ks, sum(cut) as cut, sum(seen) as seen
      from (
        select chunk_id, collection_id, doc_len, s as es,
               0::float8 as ks, 0::float8 as cut, 0::float8 as seen
        from ess
        union all
        select chunk_id, collection_id, doc_len, 0,
               case when bound = 0 then s else 0 end, case when bound > 0 then s else 0 end, bound
        from (
          select k.chunk_id, k.collection_id, k.doc_len, b.bound,
                 k.idf * k.tf * 1.9 / (k.tf + 0.9 * (0.6 + 0.4 * k.doc_len / cs.avgdl)) as s
          from topk k join bounds b using (lexeme, collection_id) cross join cs
        ) x
      ) u
      group by chunk_id, collection_id
    ),
    top as (
      -- Upper bound = known part + bounds of the cut lists the chunk was not seen in.
      select c.chunk_id, c.collection_id, c.doc_len, c.es + c.ks as known
      from cand c left join cbounds b using (collection_id)
      order by c.es + c.ks + c.cut + coalesce(b.total, 0) - c.seen desc
      limit ${o.m}
    ),
    probe as (
      -- Exact contributions of the lexemes whose list was cut in the candidate's collection.
      select top.chunk_id,
             sum(b.idf * p.tf * 1.9 / (p.tf + 0.9 * (0.6 + 0.4 * top.doc_len / cs.avgdl))) as s
      from top
      join (select bounds.*, tt.idf from bounds join tt using (lexeme) where bound > 0) b
        on b.collection_id = top.collection_id
      cross join cs
      join chunk_postings p on p.chunk_id = top.chunk_id and p.lexeme = b.lexeme
      group by top.chunk_id
    )
    select top.chunk_id, (top.known + coalesce(probe.s, 0))::float8 as score
    from top left join probe using (chunk_id)
    ${
      o.filter
        ? sql`
    join chunks c on c.id = top.chunk_id
      and c.tsv @@ websearch_to_tsquery(${o.cfg ?? 'english'}::regconfig, ${o.filter})`
        : sql``
    }
    order by score desc
    limit ${o.n}`;
}
