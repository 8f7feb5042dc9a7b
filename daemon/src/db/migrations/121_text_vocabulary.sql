-- The vocabulary typo tolerance corrects toward (search/typo-tolerance.ts; design in
-- daemon/src/search/text-index.md, "Vocabulary").
--
-- A collection's vocabulary is already exact: the lexemes whose lists (text_blocks and text_fresh,
-- per lexeme and collection) hold live postings, sum(df) > 0. What the lists cannot answer is
-- "which lexemes look like this misspelled word": text_vocabulary is every lexeme with a list in
-- some collection, once, under a trigram index (pg_trgm). A search finds the lexemes near a word
-- there, then keeps those the searched collections' own lists hold (sum(df) > 0 over them), so a
-- correction never points at a word only other collections (another tenant's) contain.
--
-- Only the fold writes it, under the fold's lock, so ingestion never waits on it: a list the fold
-- creates adds its lexeme, and a list the fold empties (or a collection emptied outright, whose
-- lists text_index_remove drops) queues its lexeme in text_vocabulary_gone, which the same fold
-- drops from text_vocabulary unless another list still holds it. A word new to every collection
-- becomes a correction target at the next fold (a minute); until then it is known, never corrected.
create extension if not exists pg_trgm;
create extension if not exists fuzzystrmatch;

create table text_vocabulary (lexeme text collate "C" primary key);
create index text_vocabulary_trgm_idx on text_vocabulary using gin (lexeme gin_trgm_ops);
-- Lexemes whose last list may be gone, checked and drained by the next fold.
create table text_vocabulary_gone (lexeme text collate "C" not null);

-- As migration 113's, plus two statements on the vocabulary: lexemes of lists created here, and of
-- lists left without postings (queued for fold_text_stats to check).
create or replace function fold_text_blocks() returns void language sql
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
  -- mode: 'w' rewrites the list whole, 'm' merges its small blocks with the fresh postings (full
  -- tails stay), 'a' appends the fresh postings as new blocks. fresh: the list had no block before.
  lists as materialized (
    select t.coll, t.lexeme, m.mode, case when m.mode = 'm' then s.floor else 0 end as floor, coalesce(d.nos, '{}') as dead,
           s.old = 0 and coalesce(t.held, 0) > 0 as fresh
      from touched t
      left join dead d using (coll, lexeme)
     cross join lateral (
       select coalesce(sum(b.df) filter (where b.df > 0), 0) as old,
              count(*) filter (where b.df > 0 and b.df < 1000) as small,
              coalesce(max(b.max_impact) filter (where b.kind = 2 and b.df >= 1000), 0) as floor
         from text_blocks b where b.lexeme = t.lexeme and b.coll = t.coll
     ) s
     cross join lateral (
       select case when coalesce(cardinality(d.nos), 0) * 16 >= s.old + coalesce(t.held, 0) then 'w'
                   when s.old = 0 then 'w'
                   when s.small < 4 and coalesce(t.held, 0) <= 128 then 'a'
                   when s.old + coalesce(t.held, 0) <= 1024 then 'w'
                   else 'm' end as mode
     ) m
  ),
  -- Tombstones are always re-merged into one row; appends leave every live block in place.
  old as materialized (
    delete from text_blocks b using lists l
     where b.lexeme = l.lexeme and b.coll = l.coll
       and (b.df < 0 or l.mode = 'w' or (l.mode = 'm' and (b.kind <> 2 or b.df < 1000)))
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
           case when l.mode = 'a' then 0
                when l.floor = 0 then least(128, cardinality(s.arr))
                else (select count(*)::int from unnest(s.arr[1:128]) x where text_posting_impact(x) >= l.floor) end as h
      from sorted s join lists l using (coll, lexeme)
     where s.arr is not null
  ),
  blocks as (
    insert into text_blocks (coll, lexeme, kind, max_impact, df, postings)
    select c.coll, c.lexeme, x.kind, x.max_impact, x.df, x.postings from cut c cross join lateral text_cut(c.arr, c.h) x
     order by c.lexeme, c.coll -- index order: inserts walk the indexes' leaves in sequence
  ),
  -- A list rewritten whole with no live posting left is gone: its lexeme may have left the vocabulary.
  gone as (
    insert into text_vocabulary_gone (lexeme)
    select distinct l.lexeme from lists l left join cut c using (coll, lexeme) where l.mode = 'w' and c.arr is null
  ),
  vocabulary as (
    insert into text_vocabulary (lexeme)
    select distinct lexeme from lists where fresh order by 1
    on conflict do nothing
  )
  -- Dead postings not among the rewritten rows (in blocks left in place) stay tombstoned.
  insert into text_blocks (coll, lexeme, kind, max_impact, df, postings)
  select l.coll, l.lexeme, 3, -1, -cardinality(k.nos), k.nos
    from lists l left join sorted s using (coll, lexeme)
   cross join lateral (
     select array_agg(n::int8 << 32 order by n) as nos from unnest(l.dead) n where n <> all(coalesce(s.found, '{}'))
   ) k
   where cardinality(l.dead) > 0 and k.nos is not null;
$$;

-- As migration 020's, then the vocabulary loses the queued lexemes no list holds any more. Fresh rows
-- written since the fold began may hold one again: their list is new to the next fold, which adds it back.
create or replace function fold_text_stats() returns void language plpgsql as $$
begin
  if not pg_try_advisory_xact_lock(hashtext('fold_text_stats')) then return; end if;
  with d as (delete from collection_text_stats_delta returning collection_id, n_chunks, total_len),
       s as (select collection_id, sum(n_chunks) as n, sum(total_len) as l from d group by 1)
  insert into collection_text_stats as t (collection_id, n_chunks, total_len) select collection_id, n, l from s
  on conflict (collection_id) do update set n_chunks = t.n_chunks + excluded.n_chunks, total_len = t.total_len + excluded.total_len;
  delete from collection_text_stats where n_chunks = 0;
  perform fold_text_blocks();
  with g as (delete from text_vocabulary_gone returning lexeme)
  delete from text_vocabulary v
   where v.lexeme in (select lexeme from g)
     and not exists (select 1 from text_blocks b where b.lexeme = v.lexeme and b.df > 0)
     and not exists (select 1 from text_fresh f where f.lexeme = v.lexeme and f.df > 0);
end $$;

-- As migration 114's, plus: a collection left without chunks queues its lists' lexemes for the
-- vocabulary check before they are dropped.
create or replace function text_index_remove(nos int[], coll_ids uuid[], tsvs tsvector[]) returns void language plpgsql as $$
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
    insert into text_vocabulary_gone (lexeme)
    select lexeme from text_blocks where coll = any(emptied) and df > 0
    union
    select lexeme from text_fresh where coll = any(emptied) and df > 0;
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
     order by x.lexeme collate "C", c.coll
  )
  insert into collection_text_stats_delta (collection_id, n_chunks, total_len)
  select coll_id, -count(*), -sum(dl) from c group by coll_id;
end $$;

-- As migration 020's, plus the vocabulary rebuilt from the new lists.
create or replace function rebuild_text_index() returns void language plpgsql
set work_mem = '128MB' set jit = off
as $$
declare
  c record;
begin
  perform pg_advisory_xact_lock(hashtext('fold_text_stats'));
  truncate text_blocks, text_fresh, text_vocabulary, text_vocabulary_gone;
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
  insert into text_vocabulary (lexeme) select distinct lexeme from text_blocks where df > 0 order by 1;
end $$;

-- The vocabulary's lexemes whose trigram similarity to a term reaches `threshold`, for each term.
-- A function because pg_trgm's `%` reads its threshold from a setting: set here for this call only
-- (the SET clause restores it on return), before the index scan that uses it.
create function text_vocabulary_similar(terms text[], threshold real) returns table (term text, lexeme text)
language plpgsql
set pg_trgm.similarity_threshold = 0.3
as $$
begin
  perform set_config('pg_trgm.similarity_threshold', threshold::text, true);
  return query
    select t.term, v.lexeme from unnest(terms) as t(term) join text_vocabulary v on v.lexeme % t.term;
end $$;

insert into text_vocabulary (lexeme)
select distinct lexeme from text_blocks where df > 0
union
select distinct lexeme from text_fresh where df > 0
order by 1;
