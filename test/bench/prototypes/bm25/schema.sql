-- BM25 text channel prototype: impact-ordered postings + lock-free statistics.
-- Applied to a scratch database by the prototype scripts; the lead turns it into a migration.

create extension if not exists vector;

create table chunks (
  id uuid primary key,
  document_id uuid not null,
  collection_id uuid not null,
  chunk_index int not null,
  content text not null,
  tsv tsvector not null,
  embedding vector
);

-- One row per (chunk, lexeme). Fixed-width columns first to avoid alignment padding.
-- impact = BM25 tf-saturation with length normalisation against a fixed reference length
-- (k1=0.9, b=0.4, ref_len=bm25_ref_len()); it only orders postings inside one
-- (collection, lexeme) list, the score itself is recomputed from tf/doc_len with live stats.
create table chunk_postings (
  collection_id uuid not null,
  chunk_id uuid not null,
  doc_len int not null,
  impact real not null,
  tf smallint not null,
  lexeme text not null
);
-- collection_id first: every tenant gets its own top-K per lexeme, so a big tenant can never
-- crowd a small tenant out of the pruned candidate lists.
create index chunk_postings_rank_idx on chunk_postings (collection_id, lexeme, impact desc)
  include (chunk_id, tf, doc_len);
-- Exact scoring probes (chunk, lexeme) -> tf for candidates; also serves deletes by chunk_id.
alter table chunk_postings add primary key (chunk_id, lexeme) include (tf);
-- Query path is index-only: keep the visibility map fresh after bulk ingest.
alter table chunk_postings set (autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_vacuum_scale_factor = 0.02);

-- Statistics = folded base rows + append-only deltas. Ingest only ever inserts deltas, so
-- concurrent workers never wait on each other's row locks; readers sum base + deltas, which
-- is exact in every snapshot. fold_text_stats() compacts deltas into the base periodically.
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

-- Reference chunk length for impact ordering (tokens after stop-word removal). A constant
-- keeps impacts stable across tenants and over time; see README for the sensitivity test.
create function bm25_ref_len() returns float8 language sql immutable parallel safe
  as $$ select 100::float8 $$;

-- Adds (sign = 1) or removes (sign = -1) the text-index footprint of a set of chunks.
-- One statement (data-modifying CTEs) so it needs no temp table and unnests each tsv once.
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
           (tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * doc_len / bm25_ref_len())))::real,
           least(tf, 32767), lexeme
    from t where sign > 0
  ),
  del as (delete from chunk_postings where sign < 0 and chunk_id = any(ids)),
  td as (
    insert into term_stats_delta (collection_id, lexeme, df)
    select collection_id, lexeme, sign * count(*) from t group by 1, 2
  )
  insert into collection_text_stats_delta (collection_id, n_chunks, total_len)
  select c.coll, sign * count(*), sign * coalesce(sum(l.len), 0)
  from unnest(ids, colls) as c(id, coll)
  left join (select chunk_id, sum(tf) as len from t group by 1) l on l.chunk_id = c.id
  group by 1;
$$;

create function chunks_text_index_ins() returns trigger language plpgsql as $$
begin
  perform chunk_text_index_apply(array_agg(id), array_agg(collection_id), array_agg(tsv), 1)
  from new_chunks having count(*) > 0;
  return null;
end $$;

create function chunks_text_index_del() returns trigger language plpgsql as $$
begin
  perform chunk_text_index_apply(array_agg(id), array_agg(collection_id), array_agg(tsv), -1)
  from old_chunks having count(*) > 0;
  return null;
end $$;

-- Only rows whose text or collection changed are re-indexed (embedding updates are free).
create function chunks_text_index_upd() returns trigger language plpgsql as $$
begin
  perform chunk_text_index_apply(array_agg(o.id), array_agg(o.collection_id), array_agg(o.tsv), -1)
  from old_chunks o join new_chunks n using (id)
  where o.tsv is distinct from n.tsv or o.collection_id <> n.collection_id
  having count(*) > 0;
  perform chunk_text_index_apply(array_agg(n.id), array_agg(n.collection_id), array_agg(n.tsv), 1)
  from old_chunks o join new_chunks n using (id)
  where o.tsv is distinct from n.tsv or o.collection_id <> n.collection_id
  having count(*) > 0;
  return null;
end $$;

create trigger chunks_text_index_ins after insert on chunks
  referencing new table as new_chunks for each statement execute function chunks_text_index_ins();
create trigger chunks_text_index_del after delete on chunks
  referencing old table as old_chunks for each statement execute function chunks_text_index_del();
create trigger chunks_text_index_upd after update on chunks
  referencing old table as old_chunks new table as new_chunks
  for each statement execute function chunks_text_index_upd();

-- Periodic compaction (e.g. a graphile-worker cron every minute). Each statement moves the
-- deltas it deletes into the base in one snapshot, so readers never double-count or miss.
create function fold_text_stats() returns void language plpgsql as $$
begin
  if not pg_try_advisory_xact_lock(hashtext('fold_text_stats')) then
    return;
  end if;
  with d as (delete from term_stats_delta returning collection_id, lexeme, df),
  s as (select collection_id, lexeme, sum(df) as df from d group by 1, 2)
  insert into term_stats as t (collection_id, lexeme, df)
  select collection_id, lexeme, df from s
  on conflict (collection_id, lexeme) do update set df = t.df + excluded.df;
  delete from term_stats where df = 0;

  with d as (delete from collection_text_stats_delta returning collection_id, n_chunks, total_len),
  s as (select collection_id, sum(n_chunks) as n, sum(total_len) as l from d group by 1)
  insert into collection_text_stats as t (collection_id, n_chunks, total_len)
  select collection_id, n, l from s
  on conflict (collection_id) do update
    set n_chunks = t.n_chunks + excluded.n_chunks, total_len = t.total_len + excluded.total_len;
  delete from collection_text_stats where n_chunks = 0;
end $$;
