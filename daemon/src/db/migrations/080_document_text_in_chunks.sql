-- An indexed document's extracted text is kept once, in its chunks: the chunker cuts the text into
-- slices, so the row records only how consecutive chunks join (`text_joins`, one entry per chunk
-- after the first: n >= 0 means the chunk starts n characters before the previous one ends, i.e. an
-- overlap; -1, -2, -3 mean a ' ', '\n' or '\n\n' between them) and leaves `content_text` empty.
-- Null `text_joins` means `content_text` holds the text (pending and failed documents, rows written
-- before this migration, and any text the chunks do not reproduce exactly: the writer compares).
-- SciFact: 1.1 KB per chunk that the row no longer repeats.
alter table documents add column text_joins integer[];

-- The text rebuilt from a document's chunks, or null when it has none.
create function chunks_text(p_document uuid, p_joins integer[]) returns text
language sql stable parallel safe as $$
  select string_agg(
           case when c.chunk_index = 0 then c.content
                when p_joins[c.chunk_index] >= 0 then substr(c.content, p_joins[c.chunk_index] + 1)
                else (array[' ', E'\n', E'\n\n'])[-p_joins[c.chunk_index]] || c.content end,
           '' order by c.chunk_index)
    from chunks c
   where c.document_id = p_document
$$;

-- What a reader sees as the document's text, from its row's columns.
create function document_text(p_document uuid, p_content text, p_joins integer[]) returns text
language sql stable parallel safe as $$
  select case when p_joins is null then p_content else coalesce(chunks_text(p_document, p_joins), '') end
$$;
