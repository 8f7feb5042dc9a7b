-- Compact BM25 index: posting lists stored as blocks (many postings per row, sorted by impact,
-- with the block's maximum impact), the way Lucene and Tantivy store them, instead of one row and
-- three index entries per posting. Document frequencies live in the blocks themselves, so the
-- term_stats tables go too. Design and measurements: daemon/src/search/text-index.md.
--
-- A list is the postings of one lexeme in one collection. Its rows in text_blocks:
--   kind 1  head: the list's highest-impact postings (at most 128);
--   kind 2  tail: the rest, in blocks of up to 1000 (one 8 KB row); every tail posting's impact
--           is <= the head's least;
--   kind 3  tombstone: numbers of deleted chunks whose postings are still in the list's blocks.
-- Ingestion never touches them: it appends to text_fresh (one row per collection and lexeme per
-- statement, and tombstones for deletions), which fold_text_stats() (a job every minute) drains
-- into heads and tails. df = postings a row holds, negative for tombstones, so sum(df) over a
-- list's rows in both tables is the exact number of live chunks holding the lexeme, in every
-- snapshot; searches read both tables and are exact either way.

-- Small integer numbers for index structures (4 bytes instead of a 16-byte uuid per posting).
-- Chunk numbers are never reused: a deleted chunk's postings may outlive it until the next fold,
-- and search only keeps numbers that still exist in chunks.
alter table collections add column no integer generated always as identity;
create unique index collections_no_idx on collections (no);
create sequence chunks_no_seq as integer;
alter table chunks add column no integer not null default nextval('chunks_no_seq');
alter sequence chunks_no_seq owned by chunks.no;
create unique index chunks_no_idx on chunks (no);

drop trigger chunks_text_index_ins on chunks;
drop trigger chunks_text_index_del on chunks;
drop trigger chunks_text_index_upd on chunks;
drop function chunks_text_index_ins();
drop function chunks_text_index_del();
drop function chunks_text_index_upd();
drop function chunk_text_index_apply(uuid[], uuid[], tsvector[], int);
drop function fold_text_stats();
drop function bm25_ref_len();
drop table chunk_postings;
drop table term_stats;
drop table term_stats_delta;

-- Lexemes compare bytewise ("C"): folds sort and index them by the million, and their order
-- means nothing.
create table text_blocks (
  coll integer not null,
  lexeme text collate "C" not null,
  kind smallint not null,
  max_impact real not null,
  df integer not null,
  -- (chunk no << 32) | (tf << 22) | doc_len, highest impact first (text_posting()).
  postings int8[] not null
) with (
  -- Tail blocks (8 KB) stay in the row instead of going to TOAST; folds rewrite heads, so vacuum early.
  toast_tuple_target = 8160,
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_insert_scale_factor = 0.01,
  autovacuum_analyze_scale_factor = 0.02
);
-- One list's rows in impact order: document frequency (index-only), complete reads, and each
-- collection's top blocks.
create index text_blocks_list_idx on text_blocks (lexeme, coll, max_impact desc) include (df);
-- A lexeme's blocks of every collection in impact order: searches spanning most of the corpus.
create index text_blocks_lexeme_idx on text_blocks (lexeme, max_impact desc) include (coll);

-- Postings (df > 0) and tombstones (df < 0, max_impact -1) written since the last fold. Emptied by
-- every fold, so its pages are reused (and trailing ones truncated) by vacuum.
create table text_fresh (
  coll integer not null,
  lexeme text collate "C" not null,
  max_impact real not null,
  df integer not null,
  postings int8[] not null
) with (
  toast_tuple_target = 8160,
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 10000,
  autovacuum_vacuum_insert_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 10000
);
create index text_fresh_list_idx on text_fresh (lexeme, coll, max_impact desc) include (df);
create index text_fresh_lexeme_idx on text_fresh (lexeme, max_impact desc) include (coll);

-- Every row of every list, as searches read them (kind 0 = fresh).
create view text_lists as
  select coll, lexeme, kind, max_impact, df, postings from text_blocks
  union all
  select coll, lexeme, 0::smallint, max_impact, df, postings from text_fresh;

-- The BM25 term, defined once (inlined by the planner wherever it is used).
create function bm25_term(idf float8, tf float8, dl float8, avgdl float8, k1 float8, b float8) returns float8
  language sql immutable parallel safe
  as $$ select idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)) $$;

-- Impact: the term's tf part at a fixed reference length (100) and k1 = 0.9, b = 0.4. It only
-- orders postings and bounds what unread blocks can add; scores use the live statistics. After a
-- change of k1 or b, `docsift-daemon reindex` re-sorts the lists for the new parameters.
create function bm25_impact(tf int, dl int) returns real
  language sql immutable parallel safe
  as $$ select bm25_term(1, tf, dl, 100, 0.9, 0.4)::real $$;

create function text_posting(no int, tf int, dl int) returns int8
  language sql immutable parallel safe
  as $$ select (no::int8 << 32) | (least(tf, 1023)::int8 << 22) | least(dl, 4194303) $$;
create function text_posting_impact(p int8) returns real
  language sql immutable parallel safe
  as $$ select bm25_impact(((p >> 22) & 1023)::int, (p & 4194303)::int) $$;

-- Adds the postings of a set of chunks as fresh rows, one per (collection, lexeme).
create function text_index_add(nos int[], coll_ids uuid[], tsvs tsvector[]) returns void language sql as $$
  with c as materialized (
    select c.no, c.coll_id, cl.no as coll, c.tsv,
           (select coalesce(sum(coalesce(cardinality(x.positions), 1)), 0) from unnest(c.tsv) x)::int as dl
      from unnest(nos, coll_ids, tsvs) as c(no, coll_id, tsv)
      join collections cl on cl.id = c.coll_id
     where c.tsv is not null
  ),
  p as (
    select c.coll, x.lexeme, text_posting(c.no, coalesce(cardinality(x.positions), 1), c.dl) as p,
           bm25_impact(coalesce(cardinality(x.positions), 1), c.dl) as imp
      from c cross join lateral unnest(c.tsv) as x
  ),
  -- Unsorted inside (the fold sorts each list): max_impact is all a search needs from a fresh row.
  ins as (
    insert into text_fresh (coll, lexeme, max_impact, df, postings)
    select coll, lexeme, max(imp), count(*), array_agg(p) from p group by coll, lexeme
  )
  insert into collection_text_stats_delta (collection_id, n_chunks, total_len)
  select coll_id, count(*), sum(dl) from c group by coll_id;
$$;

-- Removes a set of chunks: tombstones for their postings (purged by the next fold), or, when a
-- collection is left without chunks, its lists outright.
create function text_index_remove(nos int[], coll_ids uuid[], tsvs tsvector[]) returns void language plpgsql as $$
declare
  emptied int[];
begin
  select coalesce(array_agg(cl.no), '{}') into emptied
    from collections cl
   where cl.id in (select distinct u from unnest(coll_ids) u)
     and not exists (select 1 from chunks k where k.collection_id = cl.id);
  if cardinality(emptied) > 0 then
    -- A concurrent fold could rewrite these lists unseen by this delete: wait for it.
    perform pg_advisory_xact_lock(hashtext('fold_text_stats'));
    delete from text_blocks where coll = any(emptied);
    delete from text_fresh where coll = any(emptied);
  end if;
  with c as materialized (
    select c.no, c.coll_id, cl.no as coll, c.tsv,
           (select coalesce(sum(coalesce(cardinality(x.positions), 1)), 0) from unnest(c.tsv) x)::int as dl
      from unnest(nos, coll_ids, tsvs) as c(no, coll_id, tsv)
      join collections cl on cl.id = c.coll_id
     where c.tsv is not null
  ),
  ins as (
    insert into text_fresh (coll, lexeme, max_impact, df, postings)
    select c.coll, x.lexeme, -1, -count(*), array_agg(c.no::int8 << 32 order by c.no)
      from c cross join lateral unnest(c.tsv) as x
     where c.coll <> all(emptied)
     group by c.coll, x.lexeme
  )
  insert into collection_text_stats_delta (collection_id, n_chunks, total_len)
  select coll_id, -count(*), -sum(dl) from c group by coll_id;
end $$;

create function chunks_text_index_ins() returns trigger language plpgsql as $$
begin
  perform text_index_add(array_agg(no), array_agg(collection_id), array_agg(tsv))
     from new_chunks where tsv is not null having count(*) > 0;
  return null;
end $$;
create function chunks_text_index_del() returns trigger language plpgsql as $$
begin
  perform text_index_remove(array_agg(no), array_agg(collection_id), array_agg(tsv))
     from old_chunks where tsv is not null having count(*) > 0;
  return null;
end $$;
-- A chunk whose text or collection changes gets a new number, so its old postings can be
-- tombstoned without touching the new ones.
create function chunks_text_index_renumber() returns trigger language plpgsql as $$
begin
  if new.tsv is distinct from old.tsv or new.collection_id <> old.collection_id then
    new.no := nextval('chunks_no_seq');
  end if;
  return new;
end $$;
create function chunks_text_index_upd() returns trigger language plpgsql as $$
begin
  perform text_index_remove(array_agg(o.no), array_agg(o.collection_id), array_agg(o.tsv))
     from old_chunks o join new_chunks n using (id)
    where o.tsv is not null and o.no <> n.no having count(*) > 0;
  perform text_index_add(array_agg(n.no), array_agg(n.collection_id), array_agg(n.tsv))
     from old_chunks o join new_chunks n using (id)
    where n.tsv is not null and o.no <> n.no having count(*) > 0;
  return null;
end $$;

-- A list's postings, best first, cut into its head (the first h) and tail blocks of 1000.
create function text_cut(arr int8[], h int) returns table (kind smallint, max_impact real, df int, postings int8[])
  language sql immutable parallel safe
  as $$
    select 1::smallint, text_posting_impact(arr[1]), h, arr[1:h] where h > 0
    union all
    select 2::smallint, text_posting_impact(arr[lo]), least(cardinality(arr), lo + 999) - lo + 1, arr[lo:lo + 999]
      from generate_series(h + 1, cardinality(arr), 1000) lo
  $$;

-- Drains text_fresh into the lists it touches (caller holds the fold lock):
-- - lists of at most 1024 postings, or with at least 1/16 of them dead, are rewritten whole;
-- - longer lists rewrite their head, fresh rows and partly filled tail blocks only: the new head
--   is the best 128 of those that are not below any untouched (full) tail block, so every tail
--   posting stays <= the head's least impact; the rest fills tail blocks.
-- Dead postings found among the rewritten rows are dropped with their tombstone entries; the
-- others stay tombstoned (kind 3) until their list is rewritten whole.
-- (A few sorts of up to millions of rows: memory for them; no JIT compile, no parallel plans.)
create function fold_text_blocks() returns void language sql
set work_mem = '128MB' set jit = off set max_parallel_workers_per_gather = 0
as $$
  with fresh as materialized (
    delete from text_fresh returning coll, lexeme, df, postings
  ),
  touched as materialized (
    select coll, lexeme, sum(df) filter (where df > 0) as held from fresh group by coll, lexeme
  ),
  dead as materialized (
    select t.coll, t.lexeme, array_agg(distinct (p >> 32)::int) as nos
      from (select coll, lexeme, postings from fresh where df < 0
            union all
            select b.coll, b.lexeme, b.postings from touched t join text_blocks b using (coll, lexeme) where b.df < 0) t
     cross join unnest(t.postings) p
     group by t.coll, t.lexeme
  ),
  lists as materialized (
    select t.coll, t.lexeme, w.whole, case when w.whole then 0 else s.floor end as floor, coalesce(d.nos, '{}') as dead
      from touched t
      left join dead d using (coll, lexeme)
     cross join lateral (
       select coalesce(sum(b.df) filter (where b.df > 0), 0) + coalesce(t.held, 0) as held,
              coalesce(max(b.max_impact) filter (where b.kind = 2 and b.df >= 1000), 0) as floor
         from text_blocks b where b.lexeme = t.lexeme and b.coll = t.coll
     ) s
     cross join lateral (select s.held <= 1024 or coalesce(cardinality(d.nos), 0) * 16 >= s.held as whole) w
  ),
  old as materialized (
    delete from text_blocks b using lists l
     where b.lexeme = l.lexeme and b.coll = l.coll and (l.whole or b.kind <> 2 or b.df < 1000)
    returning b.coll, b.lexeme, b.df, b.postings
  ),
  -- Each list's rewritten postings, best first, without the dead ones. Rows are ordered by list
  -- before unnesting, so only each list's own postings are sorted (inside array_agg).
  sorted as (
    select s.coll, s.lexeme,
           array_agg(p order by text_posting_impact(p) desc, p) filter (where (p >> 32)::int <> all(s.dead)) as arr,
           array_agg((p >> 32)::int) filter (where (p >> 32)::int = any(s.dead)) as found
      from (select r.coll, r.lexeme, r.postings, l.dead
              from (select coll, lexeme, postings from fresh where df > 0
                    union all
                    select coll, lexeme, postings from old where df > 0) r
              join lists l using (coll, lexeme)
             order by r.lexeme, r.coll) s
     cross join unnest(s.postings) p
     group by s.lexeme, s.coll
  ),
  cut as (
    select s.coll, s.lexeme, s.arr,
           case when l.floor = 0 then least(128, cardinality(s.arr))
                else (select count(*)::int from unnest(s.arr[1:128]) x where text_posting_impact(x) >= l.floor) end as h
      from sorted s join lists l using (coll, lexeme)
     where s.arr is not null
  ),
  blocks as (
    insert into text_blocks (coll, lexeme, kind, max_impact, df, postings)
    select c.coll, c.lexeme, x.kind, x.max_impact, x.df, x.postings from cut c cross join lateral text_cut(c.arr, c.h) x
     order by c.lexeme, c.coll -- index order: inserts walk the indexes' leaves in sequence
  )
  -- Dead postings not among the rewritten rows (in untouched full tails) stay tombstoned.
  insert into text_blocks (coll, lexeme, kind, max_impact, df, postings)
  select l.coll, l.lexeme, 3, -1, -cardinality(k.nos), k.nos
    from lists l left join sorted s using (coll, lexeme)
   cross join lateral (
     select array_agg(n::int8 << 32 order by n) as nos from unnest(l.dead) n where n <> all(coalesce(s.found, '{}'))
   ) k
   where cardinality(l.dead) > 0 and k.nos is not null;
$$;

create function fold_text_stats() returns void language plpgsql as $$
begin
  if not pg_try_advisory_xact_lock(hashtext('fold_text_stats')) then return; end if;
  with d as (delete from collection_text_stats_delta returning collection_id, n_chunks, total_len),
       s as (select collection_id, sum(n_chunks) as n, sum(total_len) as l from d group by 1)
  insert into collection_text_stats as t (collection_id, n_chunks, total_len) select collection_id, n, l from s
  on conflict (collection_id) do update set n_chunks = t.n_chunks + excluded.n_chunks, total_len = t.total_len + excluded.total_len;
  delete from collection_text_stats where n_chunks = 0;
  perform fold_text_blocks();
end $$;

-- Rebuilds the whole text index from chunks.tsv (upgrades, `docsift-daemon reindex`), one
-- collection at a time, straight into head and tail blocks.
create function rebuild_text_index() returns void language plpgsql
set work_mem = '128MB' set jit = off
as $$
declare
  c record;
begin
  perform pg_advisory_xact_lock(hashtext('fold_text_stats'));
  truncate text_blocks, text_fresh;
  delete from collection_text_stats_delta;
  delete from collection_text_stats;
  for c in select cl.id, cl.no from collections cl where exists (select 1 from chunks k where k.collection_id = cl.id) loop
    with d as materialized (
      select k.no, k.tsv, (select coalesce(sum(coalesce(cardinality(x.positions), 1)), 0) from unnest(k.tsv) x)::int as dl
        from chunks k where k.collection_id = c.id and k.tsv is not null
    ),
    st as (
      insert into collection_text_stats (collection_id, n_chunks, total_len)
      select c.id, count(*), coalesce(sum(dl), 0) from d having count(*) > 0
    ),
    lists as (
      select x.lexeme,
             array_agg(text_posting(d.no, coalesce(cardinality(x.positions), 1), d.dl)
                       order by bm25_impact(coalesce(cardinality(x.positions), 1), d.dl) desc, d.no) as arr
        from d cross join lateral unnest(d.tsv) as x
       group by x.lexeme
    )
    insert into text_blocks (coll, lexeme, kind, max_impact, df, postings)
    select c.no, l.lexeme, b.kind, b.max_impact, b.df, b.postings
      from lists l cross join lateral text_cut(l.arr, least(128, cardinality(l.arr))) b;
  end loop;
end $$;

select rebuild_text_index();

create trigger chunks_text_index_ins after insert on chunks referencing new table as new_chunks
  for each statement execute function chunks_text_index_ins();
create trigger chunks_text_index_del after delete on chunks referencing old table as old_chunks
  for each statement execute function chunks_text_index_del();
create trigger chunks_text_index_renumber before update on chunks
  for each row execute function chunks_text_index_renumber();
create trigger chunks_text_index_upd after update on chunks referencing old table as old_chunks new table as new_chunks
  for each statement execute function chunks_text_index_upd();
