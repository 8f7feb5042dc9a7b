-- Structured metadata per document (documents/metadata.ts: flat object of strings, numbers,
-- booleans and string arrays, at most 8 KB). A constant default adds the column without a rewrite.
alter table documents add column metadata jsonb not null default '{}'::jsonb;

-- Metadata filters compile to containment (`@>`) for eq/in and `?` for exists: one GIN index
-- (jsonb_ops serves both) over live documents.
create index documents_metadata_idx on documents using gin (metadata) where deleted_at is null;
