-- Documents, their chunks (text + embedding + full-text vector) and the outbound event log.
create table documents (
  id uuid primary key default gen_random_uuid(),
  collection_id uuid not null references collections (id),
  uploaded_by uuid references users (id),
  title text not null,
  source_type text not null,
  status text not null default 'pending' check (status in ('pending', 'indexed', 'failed')),
  tags text[] not null default '{}',
  original_filename text not null default '',
  file_size bigint not null default 0,
  media_type text not null default 'application/octet-stream',
  blob_key text,
  source_url text,
  content_text text not null default '',
  error_message text not null default '',
  chunks_count integer not null default 0,
  -- Bumped by replace and reprocess; a processing job only writes results for its own generation.
  generation integer not null default 1,
  attempts integer not null default 0,
  indexed_at timestamptz,
  deleted_at timestamptz,
  blob_purged_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index documents_collection_idx on documents (collection_id, created_at desc, id) where deleted_at is null;
create index documents_created_idx on documents (created_at desc, id) where deleted_at is null;
create index documents_tags_idx on documents using gin (tags) where deleted_at is null;
create index documents_purge_idx on documents (deleted_at) where deleted_at is not null and blob_purged_at is null;

create table chunks (
  id uuid primary key default gen_random_uuid(),
  document_id uuid not null references documents (id) on delete cascade,
  collection_id uuid not null references collections (id),
  generation integer not null,
  chunk_index integer not null,
  page integer,
  content text not null,
  token_count integer not null default 0,
  -- Dimension depends on the configured model; per-dimension HNSW indexes are expression indexes.
  embedding vector,
  embedding_model text not null,
  created_at timestamptz not null default now(),
  unique (document_id, chunk_index)
);
create index chunks_collection_idx on chunks (collection_id);

-- Events for the organization's webhook: written in the same transaction as the state change.
create table events (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now()
);
create index events_org_idx on events (organization_id, created_at desc);
