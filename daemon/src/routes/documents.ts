import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import type { App } from './router.js';
import { keyOrSessionCaller } from './session-guard.js';
import { publicUrl } from '../config.js';
import { AppError } from '../errors.js';
import { listItemJson, uploadJson } from '../documents/json.js';
import { deleteDocument, replaceDocument, reprocessDocument } from '../documents/lifecycle.js';
import { allDocuments, documentDetail, downloadUrl, listDocuments } from '../documents/read.js';
import { createDocument, uploadDocuments, type UploadOutcome } from '../documents/upload.js';
import { updateDocument } from '../documents/update.js';
import { DocumentMetadata } from '../metadata.js';
import type { AppDeps, AppEnv } from '../types.js';
import { searchByTag } from '../documents/tags.js';
import { listFacets } from '../documents/list-facets.js';
import { FACET_FIELDS_RULE } from '../search/facets.js';
import { ListFacetsResponse } from './facet-schemas.js';
import {
  BatchUpload,
  DocumentDetail,
  DocumentListItem,
  multipartReplaceBody,
  multipartUploadBody,
  TaggedDocuments,
  TagParams,
  TagQuery,
  UploadedDocument,
} from './document-schemas.js';
import { errorResponses, jsonArrayStream, jsonResponse, UuidParam, setNextPage } from './router.js';
import { isJsonMediaType } from '../net/media-type.js';

const tags = ['Documents'];

/** Page size when a cursor arrives without a limit (older clients following `X-Next-Cursor` alone). */
const DEFAULT_PAGE = 100;

const ListQuery = z.object({
  tag: z.string().optional().openapi({ description: 'Case-insensitive substring of any tag.' }),
  collection: z.string().optional().openapi({ description: 'Collection slug.' }),
  status: z.enum(['pending', 'indexed', 'failed']).optional(),
  filter: z.string().optional().openapi({
    description:
      'A `Filter` as JSON text (URL-encoded): the grammar of search’s `filter` (schema Filter). 400 VALIDATION_FAILED names the bad clause.',
    example: '{"and":[{"year":{"gte":2024}},{"dept":"legal"}]}',
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .optional()
    .openapi({
      description: `Page size, 1–500. Without \`limit\` (and without \`cursor\`) the answer is every visible document, streamed in one array; a \`cursor\` without \`limit\` pages by ${DEFAULT_PAGE}.`,
    }),
  cursor: z
    .string()
    .optional()
    .openapi({ description: 'Opaque cursor from the previous page’s `Link: <…>; rel="next"` header (also in `X-Next-Cursor`).' }),
});

const FacetsQuery = ListQuery.pick({ tag: true, collection: true, status: true, filter: true }).extend({
  facets: z.string().openapi({
    description: `Comma-separated fields to count: ${FACET_FIELDS_RULE}`,
    example: 'tags,metadata.dept',
  }),
});

const UpdateDocument = z
  .strictObject({
    title: z.string().max(500).optional(),
    tags: z.array(z.string()).max(50).optional().openapi({ description: 'Replaces the tags.' }),
    metadata: DocumentMetadata.optional().openapi({ description: 'Replaces the whole metadata object (`{}` clears it).' }),
  })
  .openapi('UpdateDocument', { example: { title: 'ACME master agreement', tags: ['contracts'], metadata: { year: 2024, dept: 'legal' } } });

const routes = {
  byTag: createRoute({
    method: 'get',
    path: '/api/v1/tags/{tag}/documents',
    operationId: 'listDocumentsByTag',
    tags,
    summary: 'Documents carrying a tag',
    description:
      'Exact, case-insensitive tag match across visible collections (newest first, at most 500). The MCP tool search_by_tag answers the same query.',
    request: { params: TagParams, query: TagQuery },
    responses: { 200: jsonResponse(TaggedDocuments, 'Tagged documents'), ...errorResponses(['VALIDATION_FAILED', 'COLLECTION_NOT_FOUND']) },
  }),
  list: createRoute({
    method: 'get',
    path: '/api/v1/documents',
    operationId: 'listDocuments',
    tags,
    summary: 'List documents in visible collections',
    description:
      'Newest first. The body is a plain array. Without `limit` it holds every visible document (as the specification says), streamed from the database so the server\'s memory stays flat whatever the count. With `limit` it is one page; when more documents exist, the response has `Link: <url>; rel="next"` and `X-Next-Cursor`. Lists and searches of one organization run at most `SEARCH_CONCURRENCY_PER_ORG` at once; past the `SEARCH_QUEUE_PER_ORG` waiting, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.',
    request: { query: ListQuery },
    responses: {
      200: {
        ...jsonResponse(z.array(DocumentListItem), 'A page of documents'),
        headers: {
          Link: { schema: { type: 'string' }, description: 'Next page, RFC 8288' },
          'X-Next-Cursor': { schema: { type: 'string' } },
        },
      },
      ...errorResponses(['VALIDATION_FAILED']),
    },
  }),
  facets: createRoute({
    method: 'get',
    path: '/api/v1/documents/facets',
    operationId: 'listDocumentFacets',
    tags,
    summary: 'Facet counts over the document list',
    description:
      'Value counts of tags, collection or metadata keys over the documents the list (GET /documents/) selects with the same `tag`, `collection`, `status` and `filter`. A separate answer because the list’s body is a plain array. 400 VALIDATION_FAILED names a bad field (`facets[1]`) or the cap (`facets`).',
    request: { query: FacetsQuery },
    responses: { 200: jsonResponse(ListFacetsResponse, 'Facet counts'), ...errorResponses(['VALIDATION_FAILED']) },
  }),
  get: createRoute({
    method: 'get',
    path: '/api/v1/documents/{uuid}',
    operationId: 'getDocument',
    tags,
    summary: 'Get a document with its text and chunks',
    description:
      'The list fields plus the extracted `content_text`, `error_message` and the chunks in order (with page numbers for paged formats). Pending documents have empty text and no chunks. Documents the key cannot see answer 404 DOCUMENT_NOT_FOUND.',
    request: { params: UuidParam },
    responses: { 200: jsonResponse(DocumentDetail, 'The document'), ...errorResponses(['DOCUMENT_NOT_FOUND']) },
  }),
  download: createRoute({
    method: 'get',
    path: '/api/v1/documents/{uuid}/download',
    operationId: 'downloadDocument',
    tags,
    summary: 'Download the original file',
    description:
      'Redirects (302) to a signed URL valid for one hour: a presigned object-store URL, or an HMAC-signed daemon URL under /files/. Accepts a Bearer API key or, without an Authorization header, the web UI session cookie.',
    request: { params: UuidParam },
    responses: {
      302: { description: 'Redirect to the signed URL', headers: { Location: { schema: { type: 'string' } } } },
      ...errorResponses(['DOCUMENT_NOT_FOUND', 'DOCUMENT_FILE_NOT_FOUND']),
    },
  }),
  reprocess: createRoute({
    method: 'post',
    path: '/api/v1/documents/{uuid}/reprocess',
    operationId: 'reprocessDocument',
    tags,
    summary: 'Process a document again',
    description:
      'Re-runs extraction, chunking and embedding of the stored file or URL (for example after a failure or a model change). Old chunks leave search at once; status becomes `pending`. Needs write permission.',
    request: { params: UuidParam },
    responses: { 200: jsonResponse(UploadedDocument, 'Queued'), ...errorResponses(['DOCUMENT_NOT_FOUND', 'WRITE_ACCESS_REQUIRED']) },
  }),
  update: createRoute({
    method: 'patch',
    path: '/api/v1/documents/{uuid}',
    operationId: 'updateDocument',
    tags,
    summary: 'Change a document’s title, tags or metadata',
    description:
      'Changes only the fields sent, in place: no reprocessing (chunks, status and search entries stay; search sees the new values at once). `tags` and `metadata` replace the current ones. Needs write permission: a read-only grant answers 403 WRITE_ACCESS_REQUIRED.',
    request: { params: UuidParam, body: { required: true, content: { 'application/json': { schema: UpdateDocument } } } },
    responses: {
      200: jsonResponse(DocumentListItem, 'The updated document'),
      ...errorResponses(['VALIDATION_FAILED', 'DOCUMENT_NOT_FOUND', 'WRITE_ACCESS_REQUIRED']),
    },
  }),
  delete: createRoute({
    method: 'delete',
    path: '/api/v1/documents/{uuid}',
    operationId: 'deleteDocument',
    tags,
    summary: 'Delete a document',
    description: 'Soft delete: gone from listings and search at once; the stored file is purged after 7 days. Needs write permission.',
    request: { params: UuidParam },
    responses: { 204: { description: 'Deleted; no body' }, ...errorResponses(['DOCUMENT_NOT_FOUND', 'WRITE_ACCESS_REQUIRED']) },
  }),
};

export function rawBody(c: Context<AppEnv>): { body: IncomingMessage | ReadableStream<Uint8Array>; headers: Record<string, string> } {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const body = incoming ?? c.req.raw.body;
  if (!body) throw new AppError('NO_FILE_PROVIDED', 'Empty request body.');
  const headers: Record<string, string> = Object.create(null);
  c.req.raw.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return { body, headers };
}

function uploadResponse(c: Context<AppEnv>, r: UploadOutcome): Response {
  if (r.kind === 'single') return c.json(uploadJson(r.document), 201);
  return c.json(
    { uploaded: r.uploaded.map(uploadJson), skipped: r.skipped, total_uploaded: r.uploaded.length, total_skipped: r.skipped.length },
    201,
  );
}

const JsonDocument = z.strictObject({
  source_type: z.enum(['text', 'url']),
  content: z.string().optional(),
  url: z.string().optional(),
  title: z.string().optional(),
  tags: z.union([z.string(), z.array(z.string())]).optional(),
  metadata: z.unknown().optional(),
});

export function registerDocumentRoutes(app: App, deps: AppDeps): void {
  app.openapi(routes.byTag, async (c) =>
    c.json(await searchByTag(deps, c.get('caller'), c.req.valid('param').tag, { collection: c.req.valid('query').collection }), 200),
  );
  app.openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    if (q.limit === undefined && q.cursor === undefined) {
      const rows = allDocuments(deps, c.get('caller'), q);
      // The first batch is read before answering, so a database failure is still a proper error status.
      const first = await rows.next();
      c.header('content-type', 'application/json; charset=utf-8');
      return c.body(jsonArrayStream(first, rows, listItemJson, c.get('logger')), 200) as never;
    }
    const limit = q.limit ?? DEFAULT_PAGE;
    const { page, next } = await listDocuments(deps, c.get('caller'), { ...q, limit });
    setNextPage(c, next, limit);
    return c.json(page.map(listItemJson), 200);
  });
  app.openapi(routes.facets, async (c) => c.json(await listFacets(deps, c.get('caller'), c.req.valid('query')), 200));
  app.openapi(routes.get, async (c) => c.json(await documentDetail(deps, c.get('caller'), c.req.valid('param').uuid), 200));
  app.openapi(routes.download, async (c) => {
    // Without PUBLIC_URL, the address the client reached us by.
    const origin = deps.config.PUBLIC_URL ? publicUrl(deps.config) : new URL(c.req.url).origin;
    // The one API route that also accepts the web UI's session (docs/service-spec.md §4, Download rules).
    return c.redirect(await downloadUrl(deps, keyOrSessionCaller(c), c.req.valid('param').uuid, origin), 302);
  });
  app.openapi(routes.reprocess, async (c) =>
    c.json(uploadJson(await reprocessDocument(deps, c.get('caller'), c.req.valid('param').uuid)), 200),
  );
  app.openapi(routes.update, async (c) =>
    c.json(listItemJson(await updateDocument(deps, c.get('caller'), c.req.valid('param').uuid, c.req.valid('json'))), 200),
  );
  app.openapi(routes.delete, async (c) => {
    await deleteDocument(deps, c.get('caller'), c.req.valid('param').uuid);
    return c.body(null, 204);
  });

  // Multipart routes are documented in the registry but handled without a body validator, which
  // would buffer the whole upload; the service streams it instead.
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/v1/collections/{uuid}/documents',
    operationId: 'uploadDocuments',
    tags,
    summary: 'Upload documents',
    description:
      'Single (`file`) → 201 upload shape; batch (`files`, at most 100) → 201 with uploaded/skipped. Text (`source_type=text` + `content`) and URL (`source_type=url` + `url`) documents need no file, and may also be sent as JSON. Needs write permission: a full-access key on an owned collection, or a scoped key with a `write` grant. A lost database reply is resolved before answering; only when the outcome cannot be learned is the answer 503 SERVICE_UNAVAILABLE (Retry-After): list the collection before retrying. The path takes the collection’s uuid: a visible collection’s slug there answers 404 COLLECTION_NOT_FOUND whose message names the uuid to use. The answer echoes the stored `metadata`.',
    request: { params: UuidParam, body: multipartUploadBody as never },
    responses: {
      201: {
        description: 'Single upload (UploadedDocument) or batch (BatchUpload)',
        content: { 'application/json': { schema: z.union([UploadedDocument, BatchUpload]) } },
      },
      ...errorResponses([
        'NO_FILE_PROVIDED',
        'NO_FILES_PROVIDED',
        'UNSUPPORTED_FILE_TYPE',
        'FILE_TOO_LARGE',
        'INVALID_FILE_CONTENT',
        'URL_REQUIRED',
        'VALIDATION_FAILED',
        'WRITE_ACCESS_REQUIRED',
        'COLLECTION_NOT_FOUND',
        'UPLOAD_FAILED',
        'SERVICE_UNAVAILABLE',
      ]),
    },
  });
  app.post('/api/v1/collections/:uuid/documents', async (c) => {
    const caller = c.get('caller');
    const collectionId = c.req.param('uuid');
    if (isJsonMediaType(c.req.header('content-type'))) {
      // Hono's c.req.json() throws a bare SyntaxError on a body that is not JSON: the client's mistake.
      const body = await c.req.json().catch((err: Error) => {
        throw new AppError('VALIDATION_FAILED', 'Malformed request body: expected valid JSON.', { _body: [err.message] });
      });
      return c.json(uploadJson(await createDocument(deps, caller, collectionId, JsonDocument.parse(body))), 201);
    }
    return uploadResponse(c, await uploadDocuments(deps, caller, collectionId, rawBody(c)));
  });

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/v1/documents/{uuid}/replace',
    operationId: 'replaceDocument',
    tags,
    summary: 'Replace a document’s file',
    description:
      'Keeps the uuid; old chunks leave search at once and the new file is processed from scratch (status `pending`). A job still running for the old file can never overwrite the new results. Needs write permission. 503 SERVICE_UNAVAILABLE (Retry-After) only when the database connection was lost while saving and the outcome cannot be learned: read the document before retrying.',
    request: { params: UuidParam, body: multipartReplaceBody as never },
    responses: {
      200: jsonResponse(UploadedDocument, 'Replaced; processing queued'),
      ...errorResponses([
        'NO_FILE_PROVIDED',
        'UNSUPPORTED_FILE_TYPE',
        'FILE_TOO_LARGE',
        'INVALID_FILE_CONTENT',
        'VALIDATION_FAILED',
        'WRITE_ACCESS_REQUIRED',
        'DOCUMENT_NOT_FOUND',
        'UPLOAD_FAILED',
        'SERVICE_UNAVAILABLE',
      ]),
    },
  });
  app.post('/api/v1/documents/:uuid/replace', async (c) => {
    const d = await replaceDocument(deps, c.get('caller'), c.req.param('uuid'), rawBody(c));
    return c.json(uploadJson(d), 200);
  });
}
