-- Cheaper fresh rows. A statement of 300 bench chunks appends about 11,000 text_fresh rows (one per
-- collection and lexeme), and between folds of a bulk load the table holds millions, so maintaining
-- its btrees was most of what a row cost. Inserting 550k fresh rows in batches of 11k into a
-- text_fresh of 1.9M rows (a kept 300k bench database, 2026-11-27): 8.2 s as before, 5.8 s in index
-- order, 5.6 s without text_fresh_lexeme_idx, 2.8 s both (each less a 3 s scan of the source).
--
-- - text_fresh_lexeme_idx goes. It served the global (all-collections) search branch over fresh
--   rows; text_fresh_list_idx serves it by its lexeme prefix, reading all of a lexeme's fresh rows
--   (one per statement and collection since the last fold) for the branch's top 9 instead of 9.
--   With 50k chunks unfolded, the commonest lexeme's 1,219 rows take 4 ms: that much more per
--   common query word, for searches over most of the corpus, while a bulk load is unfolded.
-- - The triggers' functions insert their rows in (lexeme, coll) order, the list index's order, as
--   the fold does for its blocks: consecutive inserts land on neighbouring leaves.
drop index text_fresh_lexeme_idx;

-- Adds the postings of a set of chunks as fresh rows, one per (collection, lexeme).
create or replace function text_index_add(nos int[], coll_ids uuid[], tsvs tsvector[]) returns void language sql as $$
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
     order by lexeme collate "C", coll
  )
  insert into collection_text_stats_delta (collection_id, n_chunks, total_len)
  select coll_id, count(*), sum(dl) from c group by coll_id;
$$;

-- Removes a set of chunks: tombstones for their postings (purged by the next fold), or, when a
-- collection is left without chunks, its lists outright.
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
