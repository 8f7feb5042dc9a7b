-- The k1, b and reference length that the lists' impact order follows (bm25_impact() of 020).
-- Scores take k1 and b from the settings (BM25_K1, BM25_B) at query time. `docsift-daemon reindex`
-- rewrites bm25_impact() with the configured pair and the corpus's mean chunk length, re-sorts
-- every list and records the triple here; the daemon warns at start while the pair differs from
-- the settings (daemon/src/index/bm25-params.ts).
insert into instance_settings (key, value) values ('bm25_index', '{"k1": 0.9, "b": 0.4, "avgdl": 100}')
on conflict (key) do nothing;
