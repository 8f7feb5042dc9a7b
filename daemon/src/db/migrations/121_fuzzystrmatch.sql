-- fuzzystrmatch (contrib, shipped with the server) for typo tolerance's bounded Levenshtein distance
-- (levenshtein_less_equal; search/typo-tolerance.ts). A collection's vocabulary is its lists already
-- (the lexemes with sum(df) > 0 in text_blocks and text_fresh), so nothing else is stored: candidates
-- two edits away are read from the lists' own (lexeme, coll) index by the word's first letters. A
-- separate vocabulary under a trigram index (pg_trgm) would take SciFact past 10 KiB per chunk
-- (text-index.md, "Vocabulary and typo tolerance").
create extension if not exists fuzzystrmatch;
