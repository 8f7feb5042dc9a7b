import { DocsiftError, DocumentProcessingError, TimeoutError } from '../errors.js';
import { PagePromise } from '../pagination.js';
import type { CallOptions, Transport } from '../transport.js';
import type {
  BatchUpload,
  DocumentDetail,
  ListDocumentsQuery,
  DocumentFacets,
  DocumentListItem,
  TaggedDocuments,
  UpdateDocument,
  UploadedDocument,
} from '../types.js';
import type { DocumentMetadata } from '../filter.js';
import { tagsField, toNamedBlob, uploadForm, type FileLoader, type UploadFields, type UploadSource } from '../upload.js';
import { uploadMany, type UploadManyOptions, type UploadManyResult } from '../upload-many.js';
import { waitForSettled, type DocumentState, type SettledResult, type WaitOptions } from '../wait.js';

export interface UploadOptions extends UploadFields {
  /** File name to send (its extension decides the type); defaults to the File's or path's name. */
  filename?: string;
  signal?: AbortSignal;
}

export interface TextDocument {
  content: string;
  title?: string;
  tags?: string | string[];
  metadata?: DocumentMetadata;
}

/** Uploads and replaces: the long upload timeout, and the caller's signal. */
const upload = (t: Transport, opts: { signal?: AbortSignal | undefined }): CallOptions => ({
  timeoutMs: t.uploadTimeoutMs,
  signal: opts.signal,
});

/** waitForIndexed: the documents once all are indexed, or DocumentProcessingError / TimeoutError. */
async function untilIndexed(
  t: Transport,
  uuids: string | string[],
  opts: WaitOptions,
  get: (uuid: string) => Promise<DocumentDetail>,
): Promise<DocumentDetail | DocumentState[]> {
  const list = Array.isArray(uuids) ? uuids : [uuids];
  const r = await waitForSettled(t, list, opts);
  if (r.failed.length) {
    const first = r.failed[0]!;
    const msg =
      r.failed.length === 1
        ? `Document ${first.uuid} failed: ${first.error_message ?? 'unknown error'}`
        : `${r.failed.length} of ${list.length} documents failed; first: ${first.error_message ?? 'unknown error'}`;
    throw new DocumentProcessingError(
      msg,
      r.failed.map((f) => ({ uuid: f.uuid, ...(f.title ? { title: f.title } : {}), error_message: f.error_message ?? '' })),
    );
  }
  if (r.timedOut)
    throw new TimeoutError(`${r.pending.length} of ${list.length} documents still pending after ${opts.timeoutMs ?? 300_000} ms`);
  return Array.isArray(uuids) ? r.documents : get(list[0]!);
}

export function documentsResource(t: Transport, loader: FileLoader | undefined) {
  const resource = {
    /**
     * Documents across visible collections, newest first. `await` it for the first page (with
     * `nextCursor`), or `for await (const doc of client.documents.list())` to walk every page.
     */
    list(query: ListDocumentsQuery = {}, opts?: CallOptions): PagePromise<DocumentListItem> {
      return new PagePromise((cursor) =>
        t.getWithResponse('/api/v1/documents/', {
          params: {
            query: (({ filter, ...rest }) => ({
              ...rest,
              ...(filter !== undefined ? { filter: JSON.stringify(filter) } : {}),
              ...(cursor ? { cursor } : {}),
            }))(query),
          },
          ...opts,
        }),
      );
    },
    /**
     * Value counts of `fields` (`tags`, `collection`, `metadata.<key>`) over the documents `list`
     * would return for the same query, e.g. `facets(['metadata.dept'], { collection: 'contracts' })`.
     */
    facets(fields: string[], query: Omit<ListDocumentsQuery, 'limit' | 'cursor'> = {}, opts?: CallOptions): Promise<DocumentFacets> {
      const { filter, ...rest } = query;
      return t.get('/api/v1/documents/facets/', {
        params: { query: { ...rest, facets: fields.join(','), ...(filter !== undefined ? { filter: JSON.stringify(filter) } : {}) } },
        ...opts,
      });
    },
    /** Detail with the extracted text, chunks and error_message. */
    get(uuid: string, opts?: CallOptions): Promise<DocumentDetail> {
      return t.get('/api/v1/documents/{uuid}/', { params: { path: { uuid } }, ...opts });
    },
    /** Changes title, tags and/or metadata in place (no reprocessing); `tags` and `metadata` replace the current ones. */
    update(uuid: string, changes: UpdateDocument, opts?: CallOptions): Promise<DocumentListItem> {
      return t.patch('/api/v1/documents/{uuid}/', { params: { path: { uuid } }, body: changes, ...opts });
    },
    /** Documents carrying a tag (exact, case-insensitive), optionally within one collection (slug). */
    byTag(tag: string, query: { collection?: string } = {}, opts?: CallOptions): Promise<TaggedDocuments> {
      return t.get('/api/v1/tags/{tag}/documents/', { params: { path: { tag }, query }, ...opts });
    },
    /** Uploads one file; it starts `pending`. See `waitForIndexed`. */
    async upload(collectionUuid: string, source: UploadSource, opts: UploadOptions = {}): Promise<UploadedDocument> {
      const file = await toNamedBlob(source, loader, opts.filename, opts.title);
      const form = () => uploadForm('file', [file], opts);
      return (await t.postForm('/api/v1/collections/{uuid}/documents/', collectionUuid, form, upload(t, opts))) as UploadedDocument;
    },
    /** One batch request (at most 100 files): the service skips bad files with a reason instead of failing. */
    async uploadBatch(
      collectionUuid: string,
      sources: UploadSource[],
      opts: Omit<UploadOptions, 'filename' | 'title'> = {},
    ): Promise<BatchUpload> {
      const files = await Promise.all(sources.map((s) => toNamedBlob(s, loader)));
      const form = () => uploadForm('files', files, opts);
      return (await t.postForm('/api/v1/collections/{uuid}/documents/', collectionUuid, form, upload(t, opts))) as BatchUpload;
    },
    /** Many files, batched, with concurrency and progress; see UploadManyOptions. */
    uploadMany(collectionUuid: string, sources: UploadSource[], opts?: UploadManyOptions): Promise<UploadManyResult> {
      return uploadMany(t, loader, collectionUuid, sources, opts);
    },
    /** A text-only document (no file). */
    async uploadText(collectionUuid: string, doc: TextDocument, opts?: CallOptions): Promise<UploadedDocument> {
      const body = {
        source_type: 'text' as const,
        content: doc.content,
        ...(doc.title !== undefined ? { title: doc.title } : {}),
        ...(doc.tags !== undefined ? { tags: tagsField(doc.tags)! } : {}),
        ...(doc.metadata !== undefined ? { metadata: doc.metadata } : {}),
      };
      const data = await t.post('/api/v1/collections/{uuid}/documents/', { params: { path: { uuid: collectionUuid } }, body, ...opts });
      return data as UploadedDocument;
    },
    /** Replaces the file, keeping the uuid (and title/tags unless given); processing starts over. */
    async replace(uuid: string, source: UploadSource, opts: UploadOptions = {}): Promise<UploadedDocument> {
      const file = await toNamedBlob(source, loader, opts.filename, opts.title);
      const form = () => uploadForm('file', [file], opts);
      return (await t.postForm('/api/v1/documents/{uuid}/replace/', uuid, form, upload(t, opts))) as UploadedDocument;
    },
    /** Queues processing again (e.g. after a failure). */
    reprocess(uuid: string, opts?: CallOptions): Promise<UploadedDocument> {
      return t.post('/api/v1/documents/{uuid}/reprocess/', { params: { path: { uuid } }, ...opts });
    },
    async delete(uuid: string, opts?: CallOptions): Promise<void> {
      await t.delete('/api/v1/documents/{uuid}/', { params: { path: { uuid } }, ...opts });
    },
    /**
     * The signed, time-limited (1 hour) URL of the original file; it needs no API key. In browsers a
     * cross-origin redirect hides its Location, so this works in Node or same-origin pages.
     */
    async downloadUrl(uuid: string, opts?: CallOptions): Promise<string> {
      const { response } = await t.getWithResponse('/api/v1/documents/{uuid}/download/', {
        params: { path: { uuid } },
        redirect: 'manual',
        parseAs: 'text',
        ...opts,
      });
      const location = response.headers.get('location');
      if (!location) throw new DocsiftError(`The service did not return a download link (HTTP ${response.status}).`);
      return new URL(location, t.baseUrl + '/').toString();
    },
    /** The original file as a streaming Response (follows the signed link without the API key). */
    async download(uuid: string, opts?: CallOptions): Promise<Response> {
      const url = await resource.downloadUrl(uuid, opts);
      const res = await t.fetchImpl(url, { signal: opts?.signal ?? null });
      if (!res.ok) throw new DocsiftError(`Download failed: HTTP ${res.status}`);
      return res;
    },
    /** Polls until each document is indexed or failed; never rejects for failures or timeout. */
    waitForSettled(uuids: string | string[], opts?: WaitOptions): Promise<SettledResult> {
      return waitForSettled(t, Array.isArray(uuids) ? uuids : [uuids], opts);
    },
    /**
     * Resolves once the document (or every document) is `indexed`. Rejects with
     * DocumentProcessingError carrying each `error_message` when any ends `failed`, and with
     * TimeoutError when `timeoutMs` (default 5 minutes) passes first.
     */
    waitForIndexed: ((uuids: string | string[], opts: WaitOptions = {}) => untilIndexed(t, uuids, opts, (uuid) => resource.get(uuid))) as {
      (uuid: string, opts?: WaitOptions): Promise<DocumentDetail>;
      (uuids: string[], opts?: WaitOptions): Promise<DocumentState[]>;
    },
  };
  return resource;
}

export type DocumentsResource = ReturnType<typeof documentsResource>;
