-- A text search configuration per collection. `language` is what the owner chose; `text_config`
-- is the configuration its chunks' tsvectors (and so its BM25 lists) were built with. They differ
-- only while a reindex job (reindex_collection_language, collections/language.ts) rewrites the
-- collection's tsvectors; searches parse the query with `text_config`, so they stay exact meanwhile.
-- Null in either means the daemon's TEXT_SEARCH_CONFIG: collections created before this migration
-- keep the configuration they were indexed with, whatever it was. New collections get an explicit one.
alter table collections add column language text, add column text_config text;
