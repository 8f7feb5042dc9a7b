-- BM25 full-text channel: impact-ordered postings per (collection, lexeme) and per-collection
-- statistics, maintained by statement-level triggers on chunks so they are exact after every
-- insert, replace and delete. Design and measurements: test/bench/prototypes/bm25/README.md.

alter table chunks add column tsv tsvector;

-- One row per (chunk, lexeme). impact = BM25 tf-saturation with length normalisation against a
-- fixed reference length (k1 = 0.9, b = 0.4); it only orders postings inside a (collection,
-- lexeme) list. Scores are recomputed from tf and doc_len with live statistics at query time.
create table chunk_postings (
  collection_id uuid not null,
  chunk_id uuid not null,
  doc_len integer not null,
  impact real not null,
  tf smallint not null,
  lexeme text not null,
  primary key (chunk_id, lexeme) include (tf)
);
-- collection_id first: every tenant gets its own top-K per lexeme, so a big tenant can never
-- crowd a small one out of the pruned candidate lists.
create index chunk_postings_rank_idx on chunk_postings (collection_id, lexeme, impact desc) include (chunk_id, tf, doc_len);
alter table chunk_postings set (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.02);

-- Statistics = folded base rows + append-only deltas: ingest only inserts deltas, so concurrent
-- workers never wait on each other's row locks, and readers sum both, which is exact in every
-- snapshot. fold_text_stats() compacts the deltas (a scheduled job).
create table term_stats (
  collection_id uuid not null,
  lexeme text not null,
  df bigint not null,
  primary key (collection_id, lexeme)
);
create table term_stats_delta (
  collection_id uuid not null,
  lexeme text not null,
  df bigint not null
);
create index term_stats_delta_idx on term_stats_delta (collection_id, lexeme);
create table collection_text_stats (
  collection_id uuid primary key,
  n_chunks bigint not null,
  total_len bigint not null
);
create table collection_text_stats_delta (
  collection_id uuid not null,
  n_chunks bigint not null,
  total_len bigint not null
);
create index collection_text_stats_delta_idx on collection_text_stats_delta (collection_id);

create function bm25_ref_len() returns float8 language sql immutable parallel safe as $$ select 100::float8 $$;

-- Adds (sign = 1) or removes (sign = -1) the text-index footprint of a set of chunks.
create function chunk_text_index_apply(ids uuid[], colls uuid[], tsvs tsvector[], sign int)
returns void language sql as $$
  with t as materialized (
    select c.coll as collection_id, c.id as chunk_id, x.lexeme,
           coalesce(cardinality(x.positions), 1) as tf,
           sum(coalesce(cardinality(x.positions), 1)) over (partition by c.id) as doc_len
      from unnest(ids, colls, tsvs) as c(id, coll, tsv)
     cross join lateral unnest(c.tsv) as x
  ),
  ins as (
    insert into chunk_postings (collection_id, chunk_id, doc_len, impact, tf, lexeme)
    select collection_id, chunk_id, doc_len,
           (tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * doc_len / bm25_ref_len())))::real, least(tf, 32767), lexeme
      from t where sign > 0
  ),
  del as (delete from chunk_postings where sign < 0 and chunk_id = any(ids)),
  td as (
    insert into term_stats_delta (collection_id, lexeme, df)
    select collection_id, lexeme, sign * count(*) from t group by 1, 2
  )
  insert into collection_text_stats_delta (collection_id, n_chunks, total_len)
  select c.coll, sign * count(*), sign * coalesce(sum(l.len), 0)
    from unnest(ids, colls, tsvs) as c(id, coll, tsv)
    left join (select chunk_id, sum(tf) as len from t group by 1) l on l.chunk_id = c.id
   where c.tsv is not null
   group by 1;
$$;

create function chunks_text_index_ins() returns trigger language plpgsql as $$
begin
  perform chunk_text_index_apply(array_agg(id), array_agg(collection_id), array_agg(tsv), 1)
     from new_chunks where tsv is not null having count(*) > 0;
  return null;
end $$;
create function chunks_text_index_del() returns trigger language plpgsql as $$
begin
  perform chunk_text_index_apply(array_agg(id), array_agg(collection_id), array_agg(tsv), -1)
     from old_chunks where tsv is not null having count(*) > 0;
  return null;
end $$;
create function chunks_text_index_upd() returns trigger language plpgsql as $$
begin
  perform chunk_text_index_apply(array_agg(o.id), array_agg(o.collection_id), array_agg(o.tsv), -1)
     from old_chunks o join new_chunks n using (id)
    where o.tsv is not null and (o.tsv is distinct from n.tsv or o.collection_id <> n.collection_id) having count(*) > 0;
  perform chunk_text_index_apply(array_agg(n.id), array_agg(n.collection_id), array_agg(n.tsv), 1)
     from old_chunks o join new_chunks n using (id)
    where n.tsv is not null and (o.tsv is distinct from n.tsv or o.collection_id <> n.collection_id) having count(*) > 0;
  return null;
end $$;

-- Existing chunks (an upgrade) are indexed once, before the triggers exist.
update chunks c set tsv = to_tsvector('english', coalesce(d.title, '') || ' ' || c.content) from documents d where d.id = c.document_id;
select chunk_text_index_apply(array_agg(id), array_agg(collection_id), array_agg(tsv), 1) from chunks where tsv is not null having count(*) > 0;

create trigger chunks_text_index_ins after insert on chunks referencing new table as new_chunks
  for each statement execute function chunks_text_index_ins();
create trigger chunks_text_index_del after delete on chunks referencing old table as old_chunks
  for each statement execute function chunks_text_index_del();
create trigger chunks_text_index_upd after update on chunks referencing old table as old_chunks new table as new_chunks
  for each statement execute function chunks_text_index_upd();

create function fold_text_stats() returns void language plpgsql as $$
begin
  if not pg_try_advisory_xact_lock(hashtext('fold_text_stats')) then return; end if;
  with d as (delete from term_stats_delta returning collection_id, lexeme, df),
       s as (select collection_id, lexeme, sum(df) as df from d group by 1, 2)
  insert into term_stats as t (collection_id, lexeme, df) select collection_id, lexeme, df from s
  on conflict (collection_id, lexeme) do update set df = t.df + excluded.df;
  delete from term_stats where df = 0;
  with d as (delete from collection_text_stats_delta returning collection_id, n_chunks, total_len),
       s as (select collection_id, sum(n_chunks) as n, sum(total_len) as l from d group by 1)
  insert into collection_text_stats as t (collection_id, n_chunks, total_len) select collection_id, n, l from s
  on conflict (collection_id) do update set n_chunks = t.n_chunks + excluded.n_chunks, total_len = t.total_len + excluded.total_len;
  delete from collection_text_stats where n_chunks = 0;
end $$;
