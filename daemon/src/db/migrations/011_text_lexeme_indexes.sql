-- Lexeme-first indexes for text searches over many collections at once (search/text-channel.ts
-- "global" lists): one index descent per query lexeme instead of one per (lexeme, collection).
-- Measured at 100k chunks in 50 collections (npm run bench:search): text channel over all
-- collections 25 ms -> 12-17 ms p50, with top-10 agreement with exhaustive BM25 0.88 -> 0.92.
create index chunk_postings_lexeme_rank_idx on chunk_postings (lexeme, impact desc) include (collection_id, chunk_id, tf, doc_len);
create index term_stats_lexeme_idx on term_stats (lexeme) include (collection_id, df);
drop index term_stats_delta_idx;
create index term_stats_delta_lexeme_idx on term_stats_delta (lexeme, collection_id) include (df);
