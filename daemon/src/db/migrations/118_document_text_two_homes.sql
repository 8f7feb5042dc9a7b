-- A document's text has two homes: its chunks when they rebuild it exactly (`text_joins` not null,
-- migration 080), otherwise document_texts (a text document waiting for processing or failed, and
-- any indexed text its chunks do not rebuild: process-document.ts compares). A file or URL
-- document's text is extracted again at every restart, so it has none while pending.
-- Rows that kept their text in documents.content_text (written before migrations 080 and 110, or
-- text the chunks did not rebuild) move it to document_texts, where a row already there wins as it
-- did for readers; then the column goes.
insert into document_texts (document_id, content)
select id, content_text from documents where text_joins is null and content_text <> ''
on conflict (document_id) do nothing;

drop function document_text(uuid, text, integer[]);
alter table documents drop column content_text;

-- What a reader sees as the document's text.
create function document_text(p_document uuid, p_joins integer[]) returns text
language sql stable parallel safe as $$
  select case when p_joins is not null then coalesce(chunks_text(p_document, p_joins), '')
              else coalesce((select t.content from document_texts t where t.document_id = p_document), '') end
$$;
