-- Folds append instead of rewriting. Until now a fold rewrote every list it touched: short lists
-- (up to 1,024 postings) whole, longer ones their head and partly filled tail block. Most touched
-- lists are short, so the rewritten volume grew with the lists, not with what arrived: at 300k
-- chunks a fold of 50k rewrote 12.6M old postings beside 5.0M fresh ones (text-index.md, "A fold
-- at 300k chunks").
--
-- Now a list that already has blocks gets up to 128 fresh postings (a head's worth) as a new sorted
-- block beside them, as long as it holds fewer than 4 blocks of under 1,000 postings ("small"
-- blocks: its head, its partly filled tail and earlier appends). At the 4th, or when more than 128
-- postings arrive, its small blocks and the fresh postings are merged into a head and tails as
-- before (a tiered merge, as Lucene merges segments; its full tails stay), and a list with at least
-- 1/16 of its postings dead is still rewritten whole. Most touched lists are short and get a few
-- postings per fold, so they are rewritten about every third fold that touches them instead of at
-- every one; long lists getting many postings are merged as before.
--
-- Searches need nothing new: they read a list's blocks in max_impact order, and each block is sorted
-- inside with max_impact its first posting, so the first unread block still bounds every unseen
-- posting whatever the partition. An appended block is no bigger than a head, so a common lexeme's
-- first reads stay head-sized (appending larger runs as 1,000-posting blocks made the first block
-- read up to 8 times bigger: hybrid search at 100k cost 10.75 ms of CPU instead of 8.45), and at
-- most 3 of them precede the head, so the 8-block read still reaches it.
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
  -- tails stay), 'a' appends the fresh postings as new blocks.
  lists as materialized (
    select t.coll, t.lexeme, m.mode, case when m.mode = 'm' then s.floor else 0 end as floor, coalesce(d.nos, '{}') as dead
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
