-- The SHA-256 of a document's bytes (the stored file, or a text document's content), computed while
-- the upload streams; `docs sync` compares it with local files to skip unchanged ones. Null for URL
-- documents and for files stored before this column existed (a sync replaces those once).
alter table documents add column content_sha256 text check (content_sha256 ~ '^[0-9a-f]{64}$');
