-- Embeddings stored and indexed as halfvec (2 bytes per dimension instead of 4): the chunk row
-- and the HNSW graph shrink by about 1 KB each per 512-d chunk. Measured on the bench:search
-- corpus, recall@10 against exact search stays >= 0.95 (daemon/src/search/text-index.md).
-- HNSW indexes are per dimension (search/embedding-model.ts); they are rebuilt for halfvec here.
do $$
declare
  r record;
begin
  for r in select c.relname from pg_class c join pg_am a on a.oid = c.relam
            where a.amname = 'hnsw' and c.relname like 'chunks_embedding_hnsw_%' loop
    execute format('drop index %I', r.relname);
  end loop;
end $$;

-- A chunk (text, tsvector, halfvec: about 4 KB for 512 tokens) stays in its heap row instead of
-- being cut into TOAST pieces: a search reads each candidate's tsvector, and an exact vector scan
-- each embedding, with one page access (and the rows come out slightly smaller).
alter table chunks set (toast_tuple_target = 8160);
alter table chunks alter column embedding type halfvec using embedding::halfvec;

do $$
declare
  dims int[];
  d int;
begin
  -- Collected first: an open cursor on chunks would forbid creating its indexes.
  select coalesce(array_agg(distinct vector_dims(embedding)), '{}') into dims from chunks where embedding is not null;
  foreach d in array dims loop
    execute format(
      'create index %I on chunks using hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops) with (m = 16, ef_construction = 64) where vector_dims(embedding) = %s',
      'chunks_embedding_hnsw_' || d, d, d);
  end loop;
end $$;
