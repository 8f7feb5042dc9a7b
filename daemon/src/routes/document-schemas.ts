import { z } from '@hono/zod-openapi';
import { ALL_SOURCE_TYPES, SUPPORTED_TYPES } from '../ingest/file-types.js';
import { SKIP_CODES } from '../documents/checks.js';
import { Timestamp } from './router.js';
import { DocumentMetadata } from './filter-schemas.js';

const typeList = Object.entries(SUPPORTED_TYPES)
  .map(([t, info]) => `\`${t}\` (${info.extensions.map((e) => '.' + e).join(', ')})`)
  .join(', ');
export const SUPPORTED_TYPES_TEXT = `Supported file types: ${typeList}. Plus \`text\` (inline \`content\`) and \`url\` (fetched by the worker). Anything else, such as PNG images, is refused with 400 UNSUPPORTED_FILE_TYPE.`;

const sourceType = z.string().openapi({ description: `One of: ${ALL_SOURCE_TYPES.join(', ')}.`, example: 'pdf' });
const status = z.enum(['pending', 'indexed', 'failed']);
const originalFilename = z.string().openapi({
  description:
    'The file name as uploaded. A relative path sent as the part’s file name is kept (`guide/intro.md`; separators become `/`, empty, `.` and `..` segments and a drive letter are dropped): it is the stable key by which `docsift docs sync` matches files to documents. The title and the download’s file name use its last segment. Empty for text documents; the URL’s last path segment for URL documents.',
  example: 'guide/intro.md',
});

export const UploadedDocument = z
  .object({
    uuid: z.string().openapi({ format: 'uuid' }),
    title: z.string(),
    source_type: sourceType,
    status,
    original_filename: originalFilename,
    file_size: z.number().int(),
    tags: z.array(z.string()),
    metadata: DocumentMetadata,
    collection_name: z.string(),
    created_at: Timestamp,
  })
  .openapi('UploadedDocument', {
    description:
      'The upload shape (upload, replace, reprocess). `metadata` is the metadata stored with the document (`{}` when none was sent), an addition to the specification’s fields.',
  });

export const BatchUpload = z
  .object({
    uploaded: z.array(UploadedDocument),
    skipped: z.array(
      z.object({
        filename: z.string(),
        reason: z.string().openapi({ example: 'Unsupported file type for "photo.png" (image/png).' }),
        code: z.enum(SKIP_CODES).openapi({
          description: 'The error code a single upload of this file is refused with.',
          example: 'UNSUPPORTED_FILE_TYPE',
        }),
      }),
    ),
    total_uploaded: z.number().int(),
    total_skipped: z.number().int(),
  })
  .openapi('BatchUpload');

export const DocumentListItem = z
  .object({
    uuid: z.string().openapi({ format: 'uuid' }),
    title: z.string(),
    source_type: sourceType,
    status,
    tags: z.array(z.string()),
    metadata: DocumentMetadata,
    chunks_count: z.number().int(),
    original_filename: originalFilename,
    content_sha256: z.string().nullable().openapi({
      description:
        'Lowercase hex SHA-256 of the stored file’s bytes (of the content, for text documents), computed while the upload streams; replace updates it. Null for URL documents and for files stored before the field existed. A client compares it with a local file’s hash to skip unchanged files (`docsift docs sync`, `docs upload --skip-existing`).',
      example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    }),
    file_size: z.number().int(),
    collection_name: z.string(),
    collection_slug: z.string(),
    created_at: Timestamp,
  })
  .openapi('DocumentListItem');

/** The documents carrying a tag (GET /tags/{tag}/documents and the MCP tool search_by_tag). */
export const TagParams = z.object({
  tag: z.string().openapi({
    param: { name: 'tag', in: 'path' },
    description: 'The tag, matched whole and case-insensitively.',
    example: 'invoices',
  }),
});
export const TagQuery = z.object({ collection: z.string().optional().openapi({ description: 'Collection slug.' }) });
export const TaggedDocuments = z
  .object({ tag: z.string(), count: z.number().int(), documents: z.array(DocumentListItem) })
  .openapi('TaggedDocuments');

export const ChunkSchema = z
  .object({
    id: z.string().openapi({ format: 'uuid' }),
    content: z.string(),
    chunk_index: z.number().int(),
    embedding_model: z.string(),
    page: z.number().int().nullable().openapi({ description: 'Page of the chunk’s first character (PDFs); null otherwise.' }),
  })
  .openapi('Chunk');

export const DocumentDetail = DocumentListItem.extend({
  content_text: z.string().openapi({ description: 'Full extracted text.' }),
  error_message: z.string().openapi({ description: 'Why processing failed; empty string when there is no error.' }),
  chunks: z.array(ChunkSchema),
}).openapi('DocumentDetail');

const METADATA_FIELD = {
  type: 'string',
  description: 'A JSON object (DocumentMetadata): strings, numbers, booleans and arrays of strings; limits in DocumentMetadata.',
  example: '{"year":2024,"dept":"legal","path":"contracts/acme.pdf"}',
} as const;

const fileField = { type: 'string', format: 'binary' } as const;
export const multipartUploadBody = {
  required: true,
  description: `${SUPPORTED_TYPES_TEXT} Files are streamed; a file may hold at most 50 MiB (52,428,800 bytes), and one over it is refused with 400 FILE_TOO_LARGE as soon as it crosses the limit. A batch holds at most 100 files; a request at most 50 fields besides its files. Text content holds at most MAX_TEXT_DOCUMENT_BYTES (UTF-8; 2 MiB by default). NUL characters in fields or file names are refused with 400 VALIDATION_FAILED.`,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        properties: {
          file: {
            ...fileField,
            description:
              'One document (single upload). The part’s file name may be a relative path (`guide/intro.md`), kept as `original_filename`.',
          },
          files: {
            type: 'array',
            items: fileField,
            description: 'Several documents (batch): repeat the part. Bad files are skipped with a reason.',
          },
          title: { type: 'string', description: 'Defaults to the file name (for text: the first line; for url: the URL).' },
          tags: { type: 'string', description: 'Comma-separated; trimmed, empties and duplicates dropped.', example: 'reports, 2026' },
          metadata: METADATA_FIELD,
          source_type: {
            type: 'string',
            description:
              'Overrides detection from the extension. `text` with `content`, or `url` with `url`, creates a document without a file.',
          },
          content: {
            type: 'string',
            description:
              'Inline text when source_type=text: at most MAX_TEXT_DOCUMENT_BYTES bytes (UTF-8; 2 MiB by default), else 400 VALIDATION_FAILED.',
          },
          url: {
            type: 'string',
            description: 'Address to fetch when source_type=url (http/https; private and loopback targets are refused).',
          },
        },
      },
    },
    'application/json': {
      schema: {
        type: 'object',
        required: ['source_type'],
        properties: {
          source_type: { type: 'string', enum: ['text', 'url'] },
          content: { type: 'string', description: 'At most MAX_TEXT_DOCUMENT_BYTES bytes (UTF-8; 2 MiB by default).' },
          url: { type: 'string' },
          title: { type: 'string' },
          tags: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
          metadata: { $ref: '#/components/schemas/DocumentMetadata' },
        },
      },
    },
  },
};

export const multipartReplaceBody = {
  required: true,
  description: `${SUPPORTED_TYPES_TEXT} The uuid is kept; title and tags are kept unless given.`,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: {
          file: fileField,
          title: { type: 'string' },
          tags: { type: 'string', description: 'Comma-separated; replaces the existing tags when present.' },
          metadata: { ...METADATA_FIELD, description: `${METADATA_FIELD.description} Replaces the existing metadata when present.` },
          source_type: { type: 'string' },
        },
      },
    },
  },
};
