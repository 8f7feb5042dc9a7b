-- A text document's uploaded text waits for processing in its own table instead of the documents
-- row. In the row, the text (about 1.5 KB for a SciFact abstract, under the 2 KB where PostgreSQL
-- would move it out) left its space behind in the documents heap once processing emptied it: a bulk
-- upload left ~1.2 KB per chunk free there for good. Here the row is deleted once the chunks hold the
-- text (process-document.ts), so an emptied table's pages are truncated by vacuum.
-- A row lives while the document is pending or failed (a reprocess reads it again); restarts
-- (replace, reprocess, reembed) put an indexed text document's text back here from its chunks.
-- Rows written before this migration keep their text in documents.content_text, which readers
-- still use when a document has no row here.
create table document_texts (
  document_id uuid primary key references documents (id) on delete cascade,
  content text not null
) with (
  -- Emptied after every bulk load: vacuum soon, so its pages are reused and trailing ones truncated.
  autovacuum_vacuum_scale_factor = 0.05,
  autovacuum_vacuum_insert_scale_factor = 0.05
);

-- What a reader sees as the document's text: its chunks (migration 080), else its pending text,
-- else the row's own column (rows written before this migration, text the chunks do not rebuild).
create or replace function document_text(p_document uuid, p_content text, p_joins integer[]) returns text
language sql stable parallel safe as $$
  select case when p_joins is not null then coalesce(chunks_text(p_document, p_joins), '')
              else coalesce((select t.content from document_texts t where t.document_id = p_document), p_content) end
$$;

-- Tags are matched case-insensitively (lower(tag) over unnest(tags): documents/queries.ts,
-- search/filters.ts), which a GIN index on the array cannot serve: no plan used it.
drop index documents_tags_idx;
-- Events are read by id only (webhooks/delivery.ts); no organization is ever deleted, so the
-- foreign key needs no index either.
drop index events_org_idx;
