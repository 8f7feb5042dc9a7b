-- The orphan-blob sweep (jobs/sweep-orphan-blobs.ts) asks, for each page of stored blobs, which
-- keys a document still references; without this index every page would scan the documents table.
create index documents_blob_key_idx on documents (blob_key) where blob_key is not null;
