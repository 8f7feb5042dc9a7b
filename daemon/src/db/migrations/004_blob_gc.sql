-- Blobs no longer referenced by any document (e.g. the previous file of a replaced document).
-- They are purged with the same 7-day grace as deleted documents.
create table orphan_blobs (
  blob_key text primary key,
  orphaned_at timestamptz not null default now()
);
create index orphan_blobs_age_idx on orphan_blobs (orphaned_at);
