import type { Sql } from '../../daemon/src/db/client.js';

/**
 * Exhaustive BM25 (k1 0.9, b 0.4, Lucene IDF) over the collections' chunks, from chunks.tsv alone:
 * the oracle the pruned text channel is checked against. Top `n` (chunk id, score), best first.
 */
export async function exhaustiveBm25(sql: Sql, collectionIds: string[], query: string, n = 1000) {
  return sql<{ id: string; score: number }[]>`
    with scope as (select id, tsv, (select coalesce(sum(coalesce(cardinality(x.positions), 1)), 0) from unnest(tsv) x)::float8 as len
                     from chunks where collection_id = any(${collectionIds}::uuid[])),
         st as (select count(*)::float8 as n, avg(len) as avgdl from scope),
         q as (select distinct lexeme from unnest(to_tsvector('english', ${query})) u),
         df as (select x.lexeme, count(*)::float8 as df from scope s cross join unnest(s.tsv) x join q using (lexeme) group by 1),
         tf as (select s.id, s.len, x.lexeme, coalesce(cardinality(x.positions), 1)::float8 as tf from scope s cross join unnest(s.tsv) x join q using (lexeme))
    select tf.id, sum(ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * tf.tf * 1.9 / (tf.tf + 0.9 * (0.6 + 0.4 * tf.len / st.avgdl)))::float8 as score
      from tf join df using (lexeme) cross join st
     group by tf.id order by score desc, tf.id limit ${n}`;
}
