// The keys of the document answers and events (docs/service-spec.md), sorted: a test compares
// `Object.keys(answer).sort()` with them, so a missing or an extra field fails it.

/** What every document answer and event says of the document itself. */
const DOCUMENT_FIELDS = ['file_size', 'original_filename', 'source_type', 'status', 'tags', 'title', 'uuid'];

/** An upload's answer: the specification's shape plus `metadata` (additive: what was stored, `{}` when none). */
export const UPLOAD_FIELDS = [...DOCUMENT_FIELDS, 'collection_name', 'created_at', 'metadata'].sort();

/** An item of GET /documents/: the upload's answer plus the chunk count, the collection's slug and the content hash. */
export const LIST_FIELDS = [...UPLOAD_FIELDS, 'chunks_count', 'collection_slug', 'content_sha256'].sort();

/** GET /documents/{uuid}/: an item of the list plus the chunks, the text and the error. */
export const DETAIL_FIELDS = [...LIST_FIELDS, 'chunks', 'content_text', 'error_message'].sort();

/** The `data` of a document event (document.indexed, document.failed). */
export const EVENT_DATA_FIELDS = [...DOCUMENT_FIELDS, 'chunks_count', 'collection_name', 'collection_uuid', 'error_message'].sort();
