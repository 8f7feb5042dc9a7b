-- The background sample of a large search scope (search/background.ts sampleStatement): its chunks
-- with the lowest uuid_hash(id). This index holds one chunk in 16 by that hash (INDEXED_SHARE,
-- INDEXED_BELOW = -2^31 + 2^28), with its id, so a scope of 1M chunks finds them in about 62,500
-- index entries instead of reading two thirds of its heap (1.3 s warm, 4.6 s from a cold cache).
-- About 2 bytes per chunk.
create index chunks_sample_idx on chunks (collection_id, (uuid_hash(id))) include (id)
  where uuid_hash(id) < -1879048192;
