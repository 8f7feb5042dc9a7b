import assert from 'node:assert/strict';
import { loadConfig } from '../../daemon/src/config.js';
import type { Sql } from '../../daemon/src/db/client.js';

const defaults = loadConfig({});
/** The pair the daemon scores with unless told otherwise (BM25_K1, BM25_B). */
export const DEFAULT_PAIR = { k1: defaults.BM25_K1, b: defaults.BM25_B };

/**
 * Exhaustive BM25 (Lucene IDF; the settings' default k1 and b unless given) over the collections' chunks, from
 * chunks.tsv alone: the oracle the pruned text channel is checked against. Top `n` (chunk id,
 * score), best first.
 */
export async function exhaustiveBm25(sql: Sql, collectionIds: string[], query: string, n = 1000, p = DEFAULT_PAIR) {
  return sql<{ id: string; score: number }[]>`
    with scope as (select id, tsv, (select coalesce(sum(coalesce(cardinality(x.positions), 1)), 0) from unnest(tsv) x)::float8 as len
                     from chunks where collection_id = any(${collectionIds}::uuid[])),
         st as (select count(*)::float8 as n, avg(len) as avgdl from scope),
         q as (select distinct lexeme from unnest(to_tsvector('english', ${query})) u),
         df as (select x.lexeme, count(*)::float8 as df from scope s cross join unnest(s.tsv) x join q using (lexeme) group by 1),
         tf as (select s.id, s.len, x.lexeme, coalesce(cardinality(x.positions), 1)::float8 as tf from scope s cross join unnest(s.tsv) x join q using (lexeme))
    select tf.id, sum(ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * tf.tf * (${p.k1}::float8 + 1)
               / (tf.tf + ${p.k1}::float8 * (1 - ${p.b}::float8 + ${p.b}::float8 * tf.len / st.avgdl)))::float8 as score
      from tf join df using (lexeme) cross join st
     group by tf.id order by score desc, tf.id limit ${n}`;
}

/** Frequencies, held postings, tombstones and the block layout, checked against the chunks. */
export async function assertIndexExact(sql: Sql): Promise<void> {
  const df = await sql<{ bad: number }[]>`
    select count(*)::int as bad from (
      select b.coll, b.lexeme, sum(b.df) as df from text_lists b group by 1, 2 having sum(b.df) <> 0) h
    full join (
      select c.no as coll, x.lexeme, count(*) as df from chunks k join collections c on c.id = k.collection_id, unnest(k.tsv) x group by 1, 2) r
      using (coll, lexeme)
    where h.df is distinct from r.df`;
  assert.equal(df[0]!.bad, 0, 'document frequencies are exact');
  const held = await sql<{ dup: number; missing: number; untombstoned: number }[]>`
    with h as (
      select b.coll, b.lexeme, (p >> 32)::int as no, b.df > 0 as posting from text_lists b cross join unnest(b.postings) p
    ),
    live as (select c.no as coll, x.lexeme, k.no from chunks k join collections c on c.id = k.collection_id, unnest(k.tsv) x)
    select (select count(*) from (select 1 from h where posting group by coll, lexeme, no having count(*) > 1) x)::int as dup,
           (select count(*) from live l where not exists (select 1 from h where h.posting and (h.coll, h.lexeme, h.no) = (l.coll, l.lexeme, l.no)))::int as missing,
           (select count(*) from h where posting and not exists (select 1 from live l where (l.coll, l.lexeme, l.no) = (h.coll, h.lexeme, h.no))
                                  and not exists (select 1 from h t where not t.posting and (t.coll, t.lexeme, t.no) = (h.coll, h.lexeme, h.no)))::int as untombstoned`;
  assert.deepEqual({ ...held[0] }, { dup: 0, missing: 0, untombstoned: 0 });
}

/**
 * After a fold: at most one head of <= 128 postings per list, blocks sorted inside with max_impact
 * their first posting (what a search's bound needs), at most 4 blocks of under 1,000 postings per
 * list (the tiered merge, migration 113), no block over 1,000.
 */
export async function assertIndexLayout(sql: Sql): Promise<void> {
  const [r] = await sql<{ fresh: number; heads: number; big_head: number; big_block: number; unsorted: number; small_blocks: number }[]>`
    with b as (select *, (select array_agg(text_posting_impact(p) order by o) from unnest(postings) with ordinality u(p, o)) as imps from text_blocks where df > 0)
    select (select count(*) from text_fresh)::int as fresh,
           (select count(*) from (select 1 from b where kind = 1 group by coll, lexeme having count(*) > 1) x)::int as heads,
           (select count(*) from b where kind = 1 and df > 128)::int as big_head,
           (select count(*) from b where df > 1000)::int as big_block,
           (select count(*) from b where max_impact <> imps[1] or exists (select 1 from generate_series(2, cardinality(imps)) i where imps[i] > imps[i - 1]))::int as unsorted,
           (select count(*) from (select 1 from b where df < 1000 group by coll, lexeme having count(*) > 4) x)::int as small_blocks`;
  assert.deepEqual({ ...r }, { fresh: 0, heads: 0, big_head: 0, big_block: 0, unsorted: 0, small_blocks: 0 });
}

/** One live block of a list (tombstones left out), as folds write it. */
export interface ListBlock {
  /** row address: a block a fold leaves in place keeps it, a rewritten one does not */
  ctid: string;
  kind: number;
  df: number;
  max_impact: number;
  /** chunk number of the block's first (best) posting */
  first_no: number;
}

/** A list's live blocks in row order. */
export async function listBlocks(sql: Sql, collectionId: string, lexeme: string): Promise<ListBlock[]> {
  return sql<ListBlock[]>`
    select b.ctid::text as ctid, b.kind::int as kind, b.df, b.max_impact, (b.postings[1] >> 32)::int as first_no
      from text_blocks b join collections c on c.no = b.coll
     where c.id = ${collectionId} and b.lexeme = ${lexeme} and b.df > 0 order by b.ctid`;
}

/** The block a search reads first: the list's highest max_impact. */
export function bestBlock(blocks: ListBlock[]): ListBlock {
  return blocks.reduce((a, b) => (b.max_impact > a.max_impact ? b : a));
}

/** Indexed one-chunk documents written straight to the tables (the chunk triggers fill text_fresh). */
export async function insertIndexedTexts(sql: Sql, userId: string, collectionId: string, texts: string[]): Promise<string[]> {
  return sql.begin(async (tx) => {
    const docs = await tx<{ id: string }[]>`
      insert into documents (collection_id, uploaded_by, title, source_type, status, chunks_count, indexed_at)
      select ${collectionId}, ${userId}, 'Doc', 'text', 'indexed', 1, now() from unnest(${texts}::text[]) returning id`;
    await tx`
      insert into chunks (document_id, collection_id, generation, chunk_index, content, embedding_model, tsv)
      select (${docs.map((r) => r.id)}::uuid[])[k], ${collectionId}, 1, 0, t.content, 'none', to_tsvector('english', t.content)
        from unnest(${texts}::text[]) with ordinality as t(content, k)`;
    return docs.map((r) => r.id);
  });
}
