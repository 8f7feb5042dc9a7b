-- Languages written without spaces between words: chinese, japanese, korean and thai, chosen like
-- any other language (collections.language), indexed with docsift_<language>. PostgreSQL's parser
-- cannot split their words, so the daemon segments the text first (daemon/src/text/segment.ts:
-- ICU words and single Han, kana and Hangul characters) and these configurations parse what it
-- wrote, like `simple` (lowercase, no stemming, no stop words: Latin words in the text stay whole).
-- xquad-r-zh text nDCG@10 through the API: 0.089 under `simple`, see docs/performance.md.
do $$
declare
  lang text;
begin
  foreach lang in array array['chinese', 'japanese', 'korean', 'thai'] loop
    -- A configuration of that name an operator made (zhparser's `chinese`) stays theirs and is used
    -- as it is, like any configuration of their own: no docsift_ variant, no segmentation.
    if not exists (select 1 from pg_ts_config where cfgname = lang) then
      execute format('create text search configuration %I (copy = pg_catalog.simple)', lang);
      execute format('create text search configuration %I (copy = docsift_simple)', 'docsift_' || lang);
    end if;
  end loop;
end $$;

-- Whether a collection indexed with this configuration gets segmented text (chunks and queries).
create function text_config_segmented(p_config text) returns boolean
language sql immutable parallel safe as $$
  select p_config in ('docsift_chinese', 'docsift_japanese', 'docsift_korean', 'docsift_thai')
$$;

-- A segmented text is its stream, the lexeme `docsiftsectiongap`, then its words (segment.ts):
-- deleting the lexeme leaves a free position, so no phrase matches across the two.
create or replace function docsift_tsvector(p_config text, p_text text) returns tsvector
language sql stable parallel safe as $$
  select case when text_config_segmented(p_config) then ts_delete(v, 'docsiftsectiongap'::text) else v end
    from (select to_tsvector(p_config::regconfig, text_search_input(p_config, p_text)) as v) x
$$;

-- The query as the searched collection's configuration parses it: `p_segmented` (segment.ts's
-- segmentQuery() of the same query) for segmented configurations, else the query as typed.
create function docsift_tsquery(p_config text, p_query text, p_segmented text) returns tsquery
language sql stable parallel safe as $$
  select docsift_tsquery(p_config, case when text_config_segmented(p_config) then p_segmented else p_query end)
$$;
