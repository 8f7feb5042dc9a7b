-- The app schema (`public`) once every migration in migrations/ has run: a generated file, never
-- edited by hand. The migrations are the source; this is what they add up to, for reading and review.
-- Regenerate with `npm run db:schema`; test/db.schema.test.ts fails when it is stale.

-- Name: public; Type: SCHEMA; Schema: -; Owner: -

CREATE SCHEMA public;

-- Name: bm25_impact(integer, integer); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.bm25_impact(tf integer, dl integer) RETURNS real
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select bm25_term(1, tf, dl, 100, 0.9, 0.4)::real $$;

-- Name: bm25_term(double precision, double precision, double precision, double precision, double precision, double precision); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.bm25_term(idf double precision, tf double precision, dl double precision, avgdl double precision, k1 double precision, b double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)) $$;

-- Name: chunks_text(uuid, integer[]); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.chunks_text(p_document uuid, p_joins integer[]) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
  select string_agg(
           case when c.chunk_index = 0 then c.content
                when p_joins[c.chunk_index] >= 0 then substr(c.content, p_joins[c.chunk_index] + 1)
                else (array[' ', E'\n', E'\n\n'])[-p_joins[c.chunk_index]] || c.content end,
           '' order by c.chunk_index)
    from chunks c
   where c.document_id = p_document
$$;

-- Name: chunks_text_index_del(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.chunks_text_index_del() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
  perform text_index_remove(array_agg(no), array_agg(collection_id), array_agg(tsv))
     from old_chunks where tsv is not null having count(*) > 0;
  return null;
end $$;

-- Name: chunks_text_index_ins(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.chunks_text_index_ins() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
  perform text_index_add(array_agg(no), array_agg(collection_id), array_agg(tsv))
     from new_chunks where tsv is not null having count(*) > 0;
  return null;
end $$;

-- Name: chunks_text_index_renumber(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.chunks_text_index_renumber() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
  if new.tsv is distinct from old.tsv or new.collection_id <> old.collection_id then
    new.no := nextval('chunks_no_seq');
  end if;
  return new;
end $$;

-- Name: chunks_text_index_upd(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.chunks_text_index_upd() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
  perform text_index_remove(array_agg(o.no), array_agg(o.collection_id), array_agg(o.tsv))
     from old_chunks o join new_chunks n using (id)
    where o.tsv is not null and o.no <> n.no having count(*) > 0;
  perform text_index_add(array_agg(n.no), array_agg(n.collection_id), array_agg(n.tsv))
     from old_chunks o join new_chunks n using (id)
    where n.tsv is not null and o.no <> n.no having count(*) > 0;
  return null;
end $$;

-- Name: collection_vocabulary_fold(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.collection_vocabulary_fold() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
  insert into collection_vocabulary as v (collection_id, folded)
  select collection_id, count(*) from folded_deltas group by collection_id
  on conflict (collection_id) do update set folded = v.folded + excluded.folded;
  return null;
end $$;

-- Name: docsift_tsquery(text, text); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.docsift_tsquery(p_config text, p_query text) RETURNS tsquery
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
  select websearch_to_tsquery(p_config::regconfig, text_search_input(p_config, p_query))
$$;

-- Name: docsift_tsquery(text, text, text); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.docsift_tsquery(p_config text, p_query text, p_segmented text) RETURNS tsquery
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
  select docsift_tsquery(p_config, case when text_config_segmented(p_config) then p_segmented else p_query end)
$$;

-- Name: docsift_tsvector(text, text); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.docsift_tsvector(p_config text, p_text text) RETURNS tsvector
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
  select case when text_config_segmented(p_config) then ts_delete(v, 'docsiftsectiongap'::text) else v end
    from (select to_tsvector(p_config::regconfig, text_search_input(p_config, p_text)) as v) x
$$;

-- Name: document_text(uuid, integer[]); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.document_text(p_document uuid, p_joins integer[]) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
  select case when p_joins is not null then coalesce(chunks_text(p_document, p_joins), '')
              else coalesce((select t.content from document_texts t where t.document_id = p_document), '') end
$$;

-- Name: fold_text_blocks(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.fold_text_blocks() RETURNS void
    LANGUAGE sql
    SET work_mem TO '128MB'
    SET jit TO 'off'
    SET max_parallel_workers_per_gather TO '0'
    AS $$
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

-- Name: fold_text_stats(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.fold_text_stats() RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
  if not pg_try_advisory_xact_lock(hashtext('fold_text_stats')) then return; end if;
  with d as (delete from collection_text_stats_delta returning collection_id, n_chunks, total_len),
       s as (select collection_id, sum(n_chunks) as n, sum(total_len) as l from d group by 1)
  insert into collection_text_stats as t (collection_id, n_chunks, total_len) select collection_id, n, l from s
  on conflict (collection_id) do update set n_chunks = t.n_chunks + excluded.n_chunks, total_len = t.total_len + excluded.total_len;
  delete from collection_text_stats where n_chunks = 0;
  perform fold_text_blocks();
end $$;

-- Name: rebuild_text_index(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.rebuild_text_index() RETURNS void
    LANGUAGE plpgsql
    SET work_mem TO '128MB'
    SET jit TO 'off'
    AS $$
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

-- Name: text_config_segmented(text); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_config_segmented(p_config text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  select p_config in ('docsift_chinese', 'docsift_japanese', 'docsift_korean', 'docsift_thai')
$$;

-- Name: text_cut(bigint[], integer); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_cut(arr bigint[], h integer) RETURNS TABLE(kind smallint, max_impact real, df integer, postings bigint[])
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    select 1::smallint, text_posting_impact(arr[1]), h, arr[1:h] where h > 0
    union all
    select 2::smallint, text_posting_impact(arr[lo]), least(cardinality(arr), lo + 999) - lo + 1, arr[lo:lo + 999]
      from generate_series(h + 1, cardinality(arr), 1000) lo
  $$;

-- Name: text_index_add(integer[], uuid[], tsvector[]); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_index_add(nos integer[], coll_ids uuid[], tsvs tsvector[]) RETURNS void
    LANGUAGE sql
    AS $$
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

-- Name: text_index_config(text); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_index_config(p_language text) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
  select coalesce(
    (select cfgname::text from pg_ts_config where cfgname = 'docsift_' || p_language and pg_ts_config_is_visible(oid) limit 1),
    p_language)
$$;

-- Name: text_index_remove(integer[], uuid[], tsvector[]); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_index_remove(nos integer[], coll_ids uuid[], tsvs tsvector[]) RETURNS void
    LANGUAGE plpgsql
    AS $$
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

-- Name: text_posting(integer, integer, integer); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_posting(no integer, tf integer, dl integer) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select (no::int8 << 32) | (least(tf, 1023)::int8 << 22) | least(dl, 4194303) $$;

-- Name: text_posting_impact(bigint); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_posting_impact(p bigint) RETURNS real
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select bm25_impact(((p >> 22) & 1023)::int, (p & 4194303)::int) $$;

-- Name: text_search_input(text, text); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.text_search_input(p_config text, p_text text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  select case when p_config like 'docsift\_%' then translate(p_text, '/', ' ') else p_text end
$$;

-- Name: chinese; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.chinese (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR asciihword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR hword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.chinese
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_arabic; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_arabic (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR asciiword WITH arabic_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR word WITH arabic_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR hword_part WITH arabic_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR hword_asciipart WITH arabic_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_arabic
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_armenian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_armenian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR asciiword WITH armenian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR word WITH armenian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR hword_part WITH armenian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR hword_asciipart WITH armenian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_armenian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_basque; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_basque (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR asciiword WITH basque_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR word WITH basque_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR hword_part WITH basque_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR hword_asciipart WITH basque_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_basque
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_catalan; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_catalan (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR asciiword WITH catalan_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR word WITH catalan_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR hword_part WITH catalan_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR hword_asciipart WITH catalan_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_catalan
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_chinese; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_chinese (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_chinese
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_danish; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_danish (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR asciiword WITH danish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR word WITH danish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR hword_part WITH danish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR hword_asciipart WITH danish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_danish
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_dutch; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_dutch (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR asciiword WITH dutch_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR word WITH dutch_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR hword_part WITH dutch_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR hword_asciipart WITH dutch_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_dutch
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_english; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_english (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR asciiword WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR word WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR hword_part WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR hword_asciipart WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_english
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_finnish; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_finnish (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR asciiword WITH finnish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR word WITH finnish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR hword_part WITH finnish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR hword_asciipart WITH finnish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_finnish
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_french; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_french (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR asciiword WITH french_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR word WITH french_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR hword_part WITH french_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR hword_asciipart WITH french_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_french
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_german; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_german (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR asciiword WITH german_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR word WITH german_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR hword_part WITH german_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR hword_asciipart WITH german_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_german
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_greek; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_greek (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR asciiword WITH greek_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR word WITH greek_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR hword_part WITH greek_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR hword_asciipart WITH greek_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_greek
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_hindi; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_hindi (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR asciiword WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR word WITH hindi_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR hword_part WITH hindi_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR hword_asciipart WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hindi
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_hungarian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_hungarian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR asciiword WITH hungarian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR word WITH hungarian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR hword_part WITH hungarian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR hword_asciipart WITH hungarian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_hungarian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_indonesian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_indonesian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR asciiword WITH indonesian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR word WITH indonesian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR hword_part WITH indonesian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR hword_asciipart WITH indonesian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_indonesian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_irish; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_irish (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR asciiword WITH irish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR word WITH irish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR hword_part WITH irish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR hword_asciipart WITH irish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_irish
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_italian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_italian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR asciiword WITH italian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR word WITH italian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR hword_part WITH italian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR hword_asciipart WITH italian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_italian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_japanese; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_japanese (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_japanese
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_korean; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_korean (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_korean
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_lithuanian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_lithuanian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR asciiword WITH lithuanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR word WITH lithuanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR hword_part WITH lithuanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR hword_asciipart WITH lithuanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_lithuanian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_nepali; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_nepali (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR asciiword WITH nepali_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR word WITH nepali_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR hword_part WITH nepali_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR hword_asciipart WITH nepali_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_nepali
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_norwegian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_norwegian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR asciiword WITH norwegian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR word WITH norwegian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR hword_part WITH norwegian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR hword_asciipart WITH norwegian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_norwegian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_portuguese; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_portuguese (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR asciiword WITH portuguese_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR word WITH portuguese_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR hword_part WITH portuguese_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR hword_asciipart WITH portuguese_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_portuguese
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_romanian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_romanian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR asciiword WITH romanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR word WITH romanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR hword_part WITH romanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR hword_asciipart WITH romanian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_romanian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_russian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_russian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR asciiword WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR word WITH russian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR hword_part WITH russian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR hword_asciipart WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_russian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_serbian; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_serbian (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR asciiword WITH serbian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR word WITH serbian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR hword_part WITH serbian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR hword_asciipart WITH serbian_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_serbian
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_simple; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_simple (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_simple
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_spanish; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_spanish (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR asciiword WITH spanish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR word WITH spanish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR hword_part WITH spanish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR hword_asciipart WITH spanish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_spanish
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_swedish; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_swedish (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR asciiword WITH swedish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR word WITH swedish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR hword_part WITH swedish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR hword_asciipart WITH swedish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_swedish
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_tamil; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_tamil (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR asciiword WITH tamil_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR word WITH tamil_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR hword_part WITH tamil_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR hword_asciipart WITH tamil_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_tamil
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_thai; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_thai (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_thai
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_turkish; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_turkish (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR asciiword WITH turkish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR word WITH turkish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR hword_part WITH turkish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR hword_asciipart WITH turkish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_turkish
    ADD MAPPING FOR uint WITH simple;

-- Name: docsift_yiddish; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.docsift_yiddish (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR asciiword WITH yiddish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR word WITH yiddish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR hword_part WITH yiddish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR hword_asciipart WITH yiddish_stem;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.docsift_yiddish
    ADD MAPPING FOR uint WITH simple;

-- Name: japanese; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.japanese (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR asciihword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR hword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.japanese
    ADD MAPPING FOR uint WITH simple;

-- Name: korean; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.korean (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR asciihword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR hword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.korean
    ADD MAPPING FOR uint WITH simple;

-- Name: thai; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -

CREATE TEXT SEARCH CONFIGURATION public.thai (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR asciiword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR word WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR hword_part WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR hword_asciipart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR asciihword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR hword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.thai
    ADD MAPPING FOR uint WITH simple;

-- Name: api_keys; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.api_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    name text NOT NULL,
    prefix text NOT NULL,
    key_hash bytea NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    is_full_access boolean DEFAULT false NOT NULL,
    rate_tier text DEFAULT 'free'::text NOT NULL,
    expires_in text DEFAULT 'never'::text NOT NULL,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone,
    rotated_from uuid,
    revoked_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT api_keys_expires_in_check CHECK ((expires_in = ANY (ARRAY['30d'::text, '90d'::text, '6m'::text, '1y'::text, 'never'::text]))),
    CONSTRAINT api_keys_rate_tier_check CHECK ((rate_tier = ANY (ARRAY['free'::text, 'basic'::text, 'pro'::text])))
);

-- Name: chunks; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.chunks (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    document_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    generation integer NOT NULL,
    chunk_index integer NOT NULL,
    page integer,
    content text NOT NULL,
    token_count integer DEFAULT 0 NOT NULL,
    embedding public.halfvec,
    embedding_model text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    tsv tsvector,
    no integer NOT NULL
)
WITH (toast_tuple_target='2700');
ALTER TABLE ONLY public.chunks ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE ONLY public.chunks ALTER COLUMN tsv SET STORAGE MAIN;

-- Name: chunks_no_seq; Type: SEQUENCE; Schema: public; Owner: -

CREATE SEQUENCE public.chunks_no_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

-- Name: chunks_no_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -

ALTER SEQUENCE public.chunks_no_seq OWNED BY public.chunks.no;

-- Name: collection_text_stats; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.collection_text_stats (
    collection_id uuid NOT NULL,
    n_chunks bigint NOT NULL,
    total_len bigint NOT NULL
);

-- Name: collection_text_stats_delta; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.collection_text_stats_delta (
    collection_id uuid NOT NULL,
    n_chunks bigint NOT NULL,
    total_len bigint NOT NULL
);

-- Name: collection_vocabulary; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.collection_vocabulary (
    collection_id uuid NOT NULL,
    folded bigint NOT NULL
);

-- Name: collections; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.collections (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    owner_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    is_public boolean DEFAULT false NOT NULL,
    deleted_at timestamp with time zone,
    blobs_purged_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    no integer NOT NULL,
    language text,
    text_config text,
    imported_from uuid,
    CONSTRAINT collections_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
);

-- Name: collections_no_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.collections ALTER COLUMN no ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.collections_no_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: document_texts; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.document_texts (
    document_id uuid NOT NULL,
    content text NOT NULL
)
WITH (autovacuum_vacuum_scale_factor='0.05', autovacuum_vacuum_insert_scale_factor='0.05');

-- Name: documents; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.documents (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    collection_id uuid NOT NULL,
    uploaded_by uuid,
    title text NOT NULL,
    source_type text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    original_filename text DEFAULT ''::text NOT NULL,
    file_size bigint DEFAULT 0 NOT NULL,
    media_type text DEFAULT 'application/octet-stream'::text NOT NULL,
    blob_key text,
    source_url text,
    error_message text DEFAULT ''::text NOT NULL,
    chunks_count integer DEFAULT 0 NOT NULL,
    generation integer DEFAULT 1 NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    indexed_at timestamp with time zone,
    deleted_at timestamp with time zone,
    blob_purged_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    content_sha256 text,
    text_joins integer[],
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT documents_content_sha256_check CHECK ((content_sha256 ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT documents_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'indexed'::text, 'failed'::text])))
);

-- Name: events; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.events (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    type text NOT NULL,
    payload json NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

-- Name: instance_settings; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.instance_settings (
    key text NOT NULL,
    value jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

-- Name: invoices; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.invoices (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    period_start timestamp with time zone NOT NULL,
    period_end timestamp with time zone NOT NULL,
    plan text NOT NULL,
    currency text DEFAULT 'usd'::text NOT NULL,
    plan_fee_cents bigint NOT NULL,
    included_queries bigint NOT NULL,
    used_queries bigint NOT NULL,
    overage_queries bigint NOT NULL,
    overage_rate_millicents integer,
    overage_cents bigint NOT NULL,
    total_cents bigint NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    processor text DEFAULT 'local'::text NOT NULL,
    external_id text,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    sent_at timestamp with time zone,
    CONSTRAINT invoices_processor_check CHECK ((processor = ANY (ARRAY['local'::text, 'stripe'::text]))),
    CONSTRAINT invoices_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'recorded'::text, 'sent'::text, 'failed'::text])))
);

-- Name: key_grants; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.key_grants (
    key_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    permission text DEFAULT 'read'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT key_grants_permission_check CHECK ((permission = ANY (ARRAY['read'::text, 'write'::text])))
);

-- Name: organization_plan_changes; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.organization_plan_changes (
    id bigint NOT NULL,
    organization_id uuid NOT NULL,
    from_plan text NOT NULL,
    to_plan text NOT NULL,
    effective_at timestamp with time zone NOT NULL
);

-- Name: organization_plan_changes_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.organization_plan_changes ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.organization_plan_changes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: organizations; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.organizations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    plan text DEFAULT 'free'::text NOT NULL,
    billing_cycle_anchor timestamp with time zone,
    stripe_customer_id text,
    CONSTRAINT organizations_plan_check CHECK ((plan = ANY (ARRAY['free'::text, 'starter'::text, 'pro'::text])))
);

-- Name: orphan_blobs; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.orphan_blobs (
    blob_key text NOT NULL,
    orphaned_at timestamp with time zone DEFAULT now() NOT NULL
);

-- Name: rate_limit_counters; Type: TABLE; Schema: public; Owner: -

CREATE UNLOGGED TABLE public.rate_limit_counters (
    user_id uuid NOT NULL,
    minute_start timestamp with time zone NOT NULL,
    minute_count integer NOT NULL,
    day_start timestamp with time zone NOT NULL,
    day_count integer NOT NULL,
    month_start timestamp with time zone NOT NULL,
    month_count integer NOT NULL,
    admitted boolean NOT NULL,
    last_admitted integer DEFAULT 0 NOT NULL,
    leased integer DEFAULT 0 NOT NULL,
    spare integer[] DEFAULT '{}'::integer[] NOT NULL,
    issued integer DEFAULT 0 NOT NULL
)
WITH (fillfactor='50', autovacuum_vacuum_scale_factor='0.02');

-- Name: request_log; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.request_log (
    id bigint NOT NULL,
    ts timestamp with time zone NOT NULL,
    organization_id uuid NOT NULL,
    user_id uuid NOT NULL,
    key_id uuid NOT NULL,
    method text NOT NULL,
    endpoint text NOT NULL,
    status smallint NOT NULL,
    duration_us integer NOT NULL,
    query text,
    result_count integer,
    billable boolean DEFAULT false NOT NULL
);

-- Name: request_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.request_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.request_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL,
    breaking boolean DEFAULT false NOT NULL
);

-- Name: search_quota_usage; Type: TABLE; Schema: public; Owner: -

CREATE UNLOGGED TABLE public.search_quota_usage (
    organization_id uuid NOT NULL,
    cycle_start timestamp with time zone NOT NULL,
    searches integer NOT NULL
)
WITH (fillfactor='70');

-- Name: sessions; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.sessions (
    id_hash bytea NOT NULL,
    user_id uuid NOT NULL,
    csrf_token text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_seen_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    ip text DEFAULT ''::text NOT NULL,
    user_agent text DEFAULT ''::text NOT NULL
);

-- Name: sign_in_failures; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.sign_in_failures (
    id bigint NOT NULL,
    email text NOT NULL,
    ip text NOT NULL,
    at timestamp with time zone NOT NULL
);

-- Name: sign_in_failures_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.sign_in_failures ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.sign_in_failures_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: subscriptions; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.subscriptions (
    user_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

-- Name: text_blocks; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.text_blocks (
    coll integer NOT NULL,
    lexeme text NOT NULL COLLATE pg_catalog."C",
    kind smallint NOT NULL,
    max_impact real NOT NULL,
    df integer NOT NULL,
    postings bigint[] NOT NULL
)
WITH (toast_tuple_target='8160', autovacuum_vacuum_scale_factor='0.01', autovacuum_vacuum_insert_scale_factor='0.01', autovacuum_analyze_scale_factor='0.02');

-- Name: text_fresh; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.text_fresh (
    coll integer NOT NULL,
    lexeme text NOT NULL COLLATE pg_catalog."C",
    max_impact real NOT NULL,
    df integer NOT NULL,
    postings bigint[] NOT NULL
)
WITH (toast_tuple_target='8160', autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='10000', autovacuum_vacuum_insert_scale_factor='0', autovacuum_vacuum_insert_threshold='10000');

-- Name: text_lists; Type: VIEW; Schema: public; Owner: -

CREATE VIEW public.text_lists AS
 SELECT text_blocks.coll,
    text_blocks.lexeme,
    text_blocks.kind,
    text_blocks.max_impact,
    text_blocks.df,
    text_blocks.postings
   FROM public.text_blocks
UNION ALL
 SELECT text_fresh.coll,
    text_fresh.lexeme,
    (0)::smallint AS kind,
    text_fresh.max_impact,
    text_fresh.df,
    text_fresh.postings
   FROM public.text_fresh;

-- Name: usage_daily; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.usage_daily (
    key_id uuid NOT NULL,
    day date NOT NULL,
    organization_id uuid NOT NULL,
    user_id uuid NOT NULL,
    requests integer NOT NULL,
    errors integer NOT NULL,
    total_duration_us bigint NOT NULL,
    searches integer NOT NULL,
    billable_searches integer NOT NULL
);

-- Name: user_invites; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.user_invites (
    token_hash bytea NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone
);

-- Name: users; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    email text NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    role text DEFAULT 'member'::text NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    is_admin boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    password_hash text,
    password_changed_at timestamp with time zone,
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'member'::text])))
);

-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.webhook_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    webhook_id uuid NOT NULL,
    event_id uuid NOT NULL,
    event_type text NOT NULL,
    attempt integer NOT NULL,
    trigger text NOT NULL,
    url text NOT NULL,
    status_code integer,
    success boolean NOT NULL,
    duration_ms integer NOT NULL,
    error text,
    next_retry_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_deliveries_attempt_check CHECK ((attempt >= 1)),
    CONSTRAINT webhook_deliveries_trigger_check CHECK ((trigger = ANY (ARRAY['automatic'::text, 'manual'::text, 'test'::text])))
);

-- Name: webhooks; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.webhooks (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    url text NOT NULL,
    secret text NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

-- Name: worker_heartbeats; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.worker_heartbeats (
    worker_id text NOT NULL,
    hostname text NOT NULL,
    pid integer NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen timestamp with time zone DEFAULT now() NOT NULL
);

-- Name: chunks no; Type: DEFAULT; Schema: public; Owner: -

ALTER TABLE ONLY public.chunks ALTER COLUMN no SET DEFAULT nextval('public.chunks_no_seq'::regclass);

-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

-- Name: chunks chunks_document_id_chunk_index_key; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.chunks
    ADD CONSTRAINT chunks_document_id_chunk_index_key UNIQUE (document_id, chunk_index);

-- Name: chunks chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.chunks
    ADD CONSTRAINT chunks_pkey PRIMARY KEY (id);

-- Name: collection_text_stats collection_text_stats_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_text_stats
    ADD CONSTRAINT collection_text_stats_pkey PRIMARY KEY (collection_id);

-- Name: collection_vocabulary collection_vocabulary_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_vocabulary
    ADD CONSTRAINT collection_vocabulary_pkey PRIMARY KEY (collection_id);

-- Name: collections collections_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collections
    ADD CONSTRAINT collections_pkey PRIMARY KEY (id);

-- Name: document_texts document_texts_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.document_texts
    ADD CONSTRAINT document_texts_pkey PRIMARY KEY (document_id);

-- Name: documents documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);

-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);

-- Name: instance_settings instance_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.instance_settings
    ADD CONSTRAINT instance_settings_pkey PRIMARY KEY (key);

-- Name: invoices invoices_organization_id_period_start_key; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_organization_id_period_start_key UNIQUE (organization_id, period_start);

-- Name: invoices invoices_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);

-- Name: key_grants key_grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.key_grants
    ADD CONSTRAINT key_grants_pkey PRIMARY KEY (key_id, collection_id);

-- Name: organization_plan_changes organization_plan_changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.organization_plan_changes
    ADD CONSTRAINT organization_plan_changes_pkey PRIMARY KEY (id);

-- Name: organizations organizations_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (id);

-- Name: orphan_blobs orphan_blobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.orphan_blobs
    ADD CONSTRAINT orphan_blobs_pkey PRIMARY KEY (blob_key);

-- Name: rate_limit_counters rate_limit_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.rate_limit_counters
    ADD CONSTRAINT rate_limit_counters_pkey PRIMARY KEY (user_id);

-- Name: request_log request_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.request_log
    ADD CONSTRAINT request_log_pkey PRIMARY KEY (id);

-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

-- Name: search_quota_usage search_quota_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.search_quota_usage
    ADD CONSTRAINT search_quota_usage_pkey PRIMARY KEY (organization_id, cycle_start);

-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id_hash);

-- Name: sign_in_failures sign_in_failures_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.sign_in_failures
    ADD CONSTRAINT sign_in_failures_pkey PRIMARY KEY (id);

-- Name: subscriptions subscriptions_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (user_id, collection_id);

-- Name: usage_daily usage_daily_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.usage_daily
    ADD CONSTRAINT usage_daily_pkey PRIMARY KEY (key_id, day);

-- Name: user_invites user_invites_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.user_invites
    ADD CONSTRAINT user_invites_pkey PRIMARY KEY (token_hash);

-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

-- Name: webhooks webhooks_organization_id_key; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_organization_id_key UNIQUE (organization_id);

-- Name: webhooks webhooks_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);

-- Name: webhooks webhooks_secret_encrypted; Type: CHECK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE public.webhooks
    ADD CONSTRAINT webhooks_secret_encrypted CHECK ((secret ~~ 'enc:v1:%'::text)) NOT VALID;

-- Name: worker_heartbeats worker_heartbeats_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.worker_heartbeats
    ADD CONSTRAINT worker_heartbeats_pkey PRIMARY KEY (worker_id);

-- Name: api_keys_hash_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX api_keys_hash_key ON public.api_keys USING btree (key_hash);

-- Name: api_keys_user_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX api_keys_user_idx ON public.api_keys USING btree (user_id, created_at DESC);

-- Name: chunks_collection_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX chunks_collection_idx ON public.chunks USING btree (collection_id);

-- Name: chunks_no_idx; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX chunks_no_idx ON public.chunks USING btree (no);

-- Name: chunks_sample_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX chunks_sample_idx ON public.chunks USING btree (collection_id, uuid_hash(id)) INCLUDE (id) WHERE (uuid_hash(id) < '-1879048192'::integer);

-- Name: collection_text_stats_delta_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX collection_text_stats_delta_idx ON public.collection_text_stats_delta USING btree (collection_id);

-- Name: collections_imported_from; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX collections_imported_from ON public.collections USING btree (owner_id, imported_from) WHERE ((imported_from IS NOT NULL) AND (deleted_at IS NULL));

-- Name: collections_no_idx; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX collections_no_idx ON public.collections USING btree (no);

-- Name: collections_organization_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX collections_organization_idx ON public.collections USING btree (organization_id);

-- Name: collections_owner_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX collections_owner_idx ON public.collections USING btree (owner_id, created_at) WHERE (deleted_at IS NULL);

-- Name: collections_slug_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX collections_slug_key ON public.collections USING btree (slug);

-- Name: documents_blob_key_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX documents_blob_key_idx ON public.documents USING btree (blob_key) WHERE (blob_key IS NOT NULL);

-- Name: documents_collection_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX documents_collection_idx ON public.documents USING btree (collection_id, created_at DESC, id) WHERE (deleted_at IS NULL);

-- Name: documents_created_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX documents_created_idx ON public.documents USING btree (created_at DESC, id) WHERE (deleted_at IS NULL);

-- Name: documents_metadata_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX documents_metadata_idx ON public.documents USING gin (metadata) WHERE (deleted_at IS NULL);

-- Name: documents_pending_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX documents_pending_idx ON public.documents USING btree (collection_id) WHERE ((status = 'pending'::text) AND (deleted_at IS NULL));

-- Name: documents_purge_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX documents_purge_idx ON public.documents USING btree (deleted_at) WHERE ((deleted_at IS NOT NULL) AND (blob_purged_at IS NULL));

-- Name: invoices_pending_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX invoices_pending_idx ON public.invoices USING btree (created_at) WHERE (status = ANY (ARRAY['pending'::text, 'failed'::text]));

-- Name: key_grants_collection_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX key_grants_collection_idx ON public.key_grants USING btree (collection_id);

-- Name: organization_plan_changes_org_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX organization_plan_changes_org_idx ON public.organization_plan_changes USING btree (organization_id, effective_at);

-- Name: orphan_blobs_age_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX orphan_blobs_age_idx ON public.orphan_blobs USING btree (orphaned_at);

-- Name: request_log_key_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX request_log_key_idx ON public.request_log USING btree (key_id, ts DESC, id DESC);

-- Name: request_log_org_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX request_log_org_idx ON public.request_log USING btree (organization_id, ts DESC, id DESC);

-- Name: request_log_ts_brin; Type: INDEX; Schema: public; Owner: -

CREATE INDEX request_log_ts_brin ON public.request_log USING brin (ts);

-- Name: request_log_user_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX request_log_user_idx ON public.request_log USING btree (user_id, ts DESC, id DESC);

-- Name: sessions_expires_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX sessions_expires_idx ON public.sessions USING btree (expires_at);

-- Name: sessions_user_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX sessions_user_idx ON public.sessions USING btree (user_id);

-- Name: sign_in_failures_email_ip_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX sign_in_failures_email_ip_idx ON public.sign_in_failures USING btree (email, ip, at);

-- Name: sign_in_failures_ip_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX sign_in_failures_ip_idx ON public.sign_in_failures USING btree (ip, at);

-- Name: subscriptions_collection_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX subscriptions_collection_idx ON public.subscriptions USING btree (collection_id);

-- Name: text_blocks_lexeme_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX text_blocks_lexeme_idx ON public.text_blocks USING btree (lexeme, max_impact DESC) INCLUDE (coll);

-- Name: text_blocks_list_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX text_blocks_list_idx ON public.text_blocks USING btree (lexeme, coll, max_impact DESC) INCLUDE (df);

-- Name: text_fresh_list_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX text_fresh_list_idx ON public.text_fresh USING btree (lexeme, coll, max_impact DESC) INCLUDE (df);

-- Name: usage_daily_org_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX usage_daily_org_idx ON public.usage_daily USING btree (organization_id, day);

-- Name: usage_daily_user_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX usage_daily_user_idx ON public.usage_daily USING btree (user_id, day);

-- Name: user_invites_user_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX user_invites_user_idx ON public.user_invites USING btree (user_id);

-- Name: users_email_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX users_email_key ON public.users USING btree (lower(email));

-- Name: users_organization_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX users_organization_idx ON public.users USING btree (organization_id);

-- Name: webhook_deliveries_event_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX webhook_deliveries_event_idx ON public.webhook_deliveries USING btree (event_id, attempt);

-- Name: webhook_deliveries_org_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX webhook_deliveries_org_idx ON public.webhook_deliveries USING btree (organization_id, created_at DESC, id DESC);

-- Name: chunks chunks_text_index_del; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER chunks_text_index_del AFTER DELETE ON public.chunks REFERENCING OLD TABLE AS old_chunks FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_text_index_del();

-- Name: chunks chunks_text_index_ins; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER chunks_text_index_ins AFTER INSERT ON public.chunks REFERENCING NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_text_index_ins();

-- Name: chunks chunks_text_index_renumber; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER chunks_text_index_renumber BEFORE UPDATE ON public.chunks FOR EACH ROW EXECUTE FUNCTION public.chunks_text_index_renumber();

-- Name: chunks chunks_text_index_upd; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER chunks_text_index_upd AFTER UPDATE ON public.chunks REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_text_index_upd();

-- Name: collection_text_stats_delta collection_vocabulary_fold; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER collection_vocabulary_fold AFTER DELETE ON public.collection_text_stats_delta REFERENCING OLD TABLE AS folded_deltas FOR EACH STATEMENT EXECUTE FUNCTION public.collection_vocabulary_fold();

-- Name: api_keys api_keys_rotated_from_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_rotated_from_fkey FOREIGN KEY (rotated_from) REFERENCES public.api_keys(id);

-- Name: api_keys api_keys_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);

-- Name: chunks chunks_collection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.chunks
    ADD CONSTRAINT chunks_collection_id_fkey FOREIGN KEY (collection_id) REFERENCES public.collections(id);

-- Name: chunks chunks_document_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.chunks
    ADD CONSTRAINT chunks_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

-- Name: collections collections_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collections
    ADD CONSTRAINT collections_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

-- Name: collections collections_owner_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collections
    ADD CONSTRAINT collections_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES public.users(id);

-- Name: document_texts document_texts_document_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.document_texts
    ADD CONSTRAINT document_texts_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

-- Name: documents documents_collection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_collection_id_fkey FOREIGN KEY (collection_id) REFERENCES public.collections(id);

-- Name: documents documents_uploaded_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_uploaded_by_fkey FOREIGN KEY (uploaded_by) REFERENCES public.users(id);

-- Name: events events_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

-- Name: invoices invoices_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

-- Name: key_grants key_grants_collection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.key_grants
    ADD CONSTRAINT key_grants_collection_id_fkey FOREIGN KEY (collection_id) REFERENCES public.collections(id);

-- Name: key_grants key_grants_key_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.key_grants
    ADD CONSTRAINT key_grants_key_id_fkey FOREIGN KEY (key_id) REFERENCES public.api_keys(id);

-- Name: organization_plan_changes organization_plan_changes_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.organization_plan_changes
    ADD CONSTRAINT organization_plan_changes_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

-- Name: sessions sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

-- Name: subscriptions subscriptions_collection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_collection_id_fkey FOREIGN KEY (collection_id) REFERENCES public.collections(id);

-- Name: subscriptions subscriptions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);

-- Name: user_invites user_invites_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.user_invites
    ADD CONSTRAINT user_invites_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

-- Name: users users_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

-- Name: webhook_deliveries webhook_deliveries_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;

-- Name: webhook_deliveries webhook_deliveries_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

-- Name: webhooks webhooks_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);
