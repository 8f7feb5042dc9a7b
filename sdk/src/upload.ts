import type { DocumentMetadata } from './filter.js';
import { DocsiftError } from './errors.js';
import { mediaTypeOf } from './media-types.js';

/**
 * What can be uploaded: a Blob or File; `{name, data}` for bytes or text held in memory; or a file
 * path, which needs a file loader and therefore the Node entry (`@docsift/sdk/node`).
 */
export type UploadSource = Blob | string | { name: string; data: Blob | ArrayBuffer | Uint8Array | string; type?: string };

export interface NamedBlob {
  name: string;
  blob: Blob;
}

/** Opens a path as a Blob without reading it into memory; supplied by `@docsift/sdk/node`. */
export type FileLoader = (path: string) => Promise<NamedBlob>;

/** The service refuses files over 50 MiB; larger ones are skipped before sending anything. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** The service accepts at most 100 files per batch request. */
export const MAX_BATCH_FILES = 100;

function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/**
 * `title` names a nameless Blob when it looks like a file name (has an extension), so
 * `upload(uuid, new Blob([...]), { title: 'hello.txt' })` works as it reads.
 */
export async function toNamedBlob(
  source: UploadSource,
  loader: FileLoader | undefined,
  filename?: string,
  title?: string,
): Promise<NamedBlob> {
  if (typeof source === 'string') {
    if (!loader) {
      throw new DocsiftError(
        'Uploading by file path needs the Node entry: import { createClient } from "@docsift/sdk/node". In browsers pass a File or Blob.',
      );
    }
    const loaded = await loader(source);
    return { name: filename ?? loaded.name, blob: loaded.blob };
  }
  if (source instanceof Blob) {
    const own = (source as { name?: unknown }).name;
    const fromTitle = title && /\.[A-Za-z0-9]{1,8}$/.test(title) ? baseName(title) : undefined;
    const name = filename ?? (typeof own === 'string' && own ? baseName(own) : fromTitle);
    if (!name)
      throw new DocsiftError(
        'A Blob has no file name, and the service detects the type from the extension: pass { filename }, { name, data }, or a title with an extension such as "notes.txt".',
      );
    return { name, blob: source };
  }
  const data = (source as { data?: unknown }).data;
  // Plain JavaScript gets no type check, and new Blob([undefined]) would quietly send a wrong file.
  if (!(data instanceof Blob || typeof data === 'string' || data instanceof ArrayBuffer || ArrayBuffer.isView(data))) {
    throw new DocsiftError(
      `An upload source { name, data } needs data: a string, Uint8Array, ArrayBuffer or Blob (got ${data === undefined ? 'no data' : typeof data}).`,
    );
  }
  const blob = data instanceof Blob ? data : new Blob([data as BlobPart], { type: source.type ?? '' });
  return { name: filename ?? source.name, blob };
}

export interface UploadFields {
  title?: string | undefined;
  /** A comma-separated string or an array of tags. */
  tags?: string | string[] | undefined;
  /** Overrides detection from the extension. */
  sourceType?: string | undefined;
  /** Structured fields, filterable in search (sent as the `metadata` form field, JSON). */
  metadata?: DocumentMetadata | undefined;
}

export function tagsField(tags: string | string[] | undefined): string | undefined {
  if (tags === undefined) return undefined;
  return Array.isArray(tags) ? tags.join(',') : tags;
}

/** Builds the multipart body afresh (a retry needs a fresh one; Blob parts are re-readable). */
export function uploadForm(field: 'file' | 'files', files: NamedBlob[], fields: UploadFields): FormData {
  const form = new FormData();
  if (fields.title !== undefined) form.append('title', fields.title);
  const tags = tagsField(fields.tags);
  if (tags !== undefined) form.append('tags', tags);
  if (fields.sourceType !== undefined) form.append('source_type', fields.sourceType);
  if (fields.metadata !== undefined) form.append('metadata', JSON.stringify(fields.metadata));
  for (const f of files) form.append(field, typed(f), f.name);
  return form;
}

/**
 * The part's media type: the Blob's own, else the one its extension names (a path opened from disk
 * has none, and would be stored as application/octet-stream). Wrapping reads no bytes.
 */
function typed(f: NamedBlob): Blob {
  const type = f.blob.type ? undefined : mediaTypeOf(f.name);
  return type ? new Blob([f.blob], { type }) : f.blob;
}

export interface BatchPlanItem {
  index: number;
  file: NamedBlob;
}

/** Groups files into requests of at most `batchSize` files and about `maxBatchBytes` bytes. */
export function planBatches(items: BatchPlanItem[], batchSize: number, maxBatchBytes: number): BatchPlanItem[][] {
  const batches: BatchPlanItem[][] = [];
  let current: BatchPlanItem[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = item.file.blob.size;
    if (current.length && (current.length >= batchSize || bytes + size > maxBatchBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length) batches.push(current);
  return batches;
}

/** Runs `worker` over `items` with at most `concurrency` in flight; the first rejection stops new starts and is rethrown. */
export async function runPool<T>(items: T[], concurrency: number, worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (!failure && next < items.length) {
      const item = items[next++] as T;
      try {
        await worker(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  });
  await Promise.all(lanes);
  if (failure) throw failure.err;
}
