-- Tokenization and BM25 chosen on two datasets (docs/performance.md, "Tokenization and BM25 on two
-- datasets"; `npm run bench:quality -- --dataset scifact|nfcorpus`, text nDCG@10 SciFact /
-- NFCorpus: 0.691 / 0.324 before, 0.694 / 0.331 with all three changes, LanceDB's BM25 0.687 /
-- 0.330):
-- 1. `docsift_<config>` for every built-in text search configuration: a copy without the
--    hyphenated-compound token (asciihword, hword, numhword). "TNF-alpha" indexes as tnf and alpha,
--    not also as the compound, which a query only matches when written the same way.
-- 2. Slash-joined words split: "IL-6/IL-10" and "cells/ml" are one `file` token to PostgreSQL's
--    parser; docsift_tsvector() and docsift_tsquery() turn "/" into a space for docsift_ configurations,
--    on both sides, so a collection still on its former configuration parses as it was indexed.
-- 3. BM25 k1/b 1.2/0.75 for scores (the defaults in config.ts change with this migration). The
--    lists keep the default impact order (0.9/0.4 at length 100), which serves any scoring pair
--    (indexing/bm25-params.ts); nothing to rewrite here.
-- A collection's `language` stays what its owner chose; its `text_config` becomes
-- text_index_config(language) once the reindex job (collections/language.ts) rewrites its
-- tsvectors. The daemon enqueues those jobs at start for every collection whose index differs.
do $$
declare
  cfg text;
begin
  for cfg in select cfgname::text from pg_ts_config where cfgnamespace = 'pg_catalog'::regnamespace order by 1 loop
    execute format('create text search configuration %I (copy = pg_catalog.%I)', 'docsift_' || cfg, cfg);
    execute format('alter text search configuration %I drop mapping if exists for asciihword, hword, numhword', 'docsift_' || cfg);
  end loop;
end $$;

-- The configuration a collection of this language is indexed with: docsift's variant when there is one.
create function text_index_config(p_language text) returns text
language sql stable parallel safe as $$
  select coalesce(
    (select cfgname::text from pg_ts_config where cfgname = 'docsift_' || p_language and pg_ts_config_is_visible(oid) limit 1),
    p_language)
$$;

-- The text a configuration parses: slashes split words under docsift_ configurations.
create function text_search_input(p_config text, p_text text) returns text
language sql immutable parallel safe as $$
  select case when p_config like 'docsift\_%' then translate(p_text, '/', ' ') else p_text end
$$;

-- Every tsvector and every query tsquery goes through these two, so both sides always agree.
create function docsift_tsvector(p_config text, p_text text) returns tsvector
language sql stable parallel safe as $$
  select to_tsvector(p_config::regconfig, text_search_input(p_config, p_text))
$$;

create function docsift_tsquery(p_config text, p_query text) returns tsquery
language sql stable parallel safe as $$
  select websearch_to_tsquery(p_config::regconfig, text_search_input(p_config, p_query))
$$;
