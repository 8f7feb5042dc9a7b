import type { DocumentMetadata } from './filter.js';
import { ApiError, AuthenticationError, ConnectionError, DocsiftError, NotFoundError, PermissionError, TimeoutError } from './errors.js';
import type { CallOptions, Transport } from './transport.js';
import type { BatchUpload, UploadedDocument } from './types.js';
import {
  MAX_BATCH_FILES,
  MAX_FILE_BYTES,
  planBatches,
  runPool,
  toNamedBlob,
  uploadForm,
  type BatchPlanItem,
  type FileLoader,
  type UploadFields,
  type UploadSource,
} from './upload.js';

export interface UploadProgress {
  filesTotal: number;
  filesDone: number;
  bytesTotal: number;
  bytesDone: number;
  uploaded: number;
  skipped: number;
  failed: number;
}

export interface UploadManyOptions extends Omit<UploadFields, 'title'> {
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Files per request, 1–100 (default 20). 1 sends every file as a single upload. */
  batchSize?: number;
  /** Soft cap on the bytes of one request (default 32 MB); a larger single file still goes alone. */
  maxBatchBytes?: number;
  onProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
  /**
   * Metadata of one file (for example its relative path), instead of the shared `metadata`. Each
   * file then goes in its own request: a batch request carries one metadata object for all files.
   */
  metadataOf?: (filename: string, index: number) => DocumentMetadata;
}

export type UploadOutcome =
  | { index: number; filename: string; size: number; status: 'uploaded'; document: UploadedDocument }
  | { index: number; filename: string; size: number; status: 'skipped'; reason: string; code: string }
  | { index: number; filename: string; size: number; status: 'failed'; error: DocsiftError };

export interface UploadManyResult {
  /** One entry per input, in input order. */
  results: UploadOutcome[];
  uploaded: UploadedDocument[];
  /** Refused by the service (e.g. unsupported type, too large), with its reason and code (e.g. `UNSUPPORTED_FILE_TYPE`). */
  skipped: { index: number; filename: string; reason: string; code: string }[];
  /** Not accepted because the request failed (after retries). */
  failed: { index: number; filename: string; error: DocsiftError }[];
}

/**
 * `documents.uploadMany` stopped early because the server could no longer be reached (a refused
 * connection after retries): every later request would fail the same way, so the remaining files
 * were not sent. `result` holds what was done before (uploaded, skipped and failed files);
 * `unsent` lists the input indexes never sent. Uploading the `unsent` ones later completes the run.
 */
export class UploadInterruptedError extends ConnectionError {
  constructor(
    message: string,
    readonly result: UploadManyResult,
    readonly unsent: number[],
    options: { cause?: unknown; code?: string | undefined } = {},
  ) {
    super(message, { ...options, beforeSend: true });
  }
}

// Errors that will fail every remaining request the same way: stop rather than repeat them. A
// refused connection (after the client's retries) means the server is gone.
const isFatal = (err: unknown) =>
  err instanceof AuthenticationError ||
  err instanceof PermissionError ||
  err instanceof NotFoundError ||
  (err instanceof ConnectionError && err.beforeSend && !(err instanceof TimeoutError));

/**
 * Each skipped file's code, as the service sends it. A service without the `code` field (the
 * specification's skipped entry holds only filename and reason) is read from its reasons (spec §4
 * upload checks), so a caller can still tell them apart.
 */
function skipCode(s: { reason: string; code?: string }): string {
  if (s.code) return s.code;
  if (/exceeds the \d+ Mi?B limit/i.test(s.reason)) return 'FILE_TOO_LARGE';
  if (/^Unsupported file type/i.test(s.reason)) return 'UNSUPPORTED_FILE_TYPE';
  if (/does not match its type/i.test(s.reason)) return 'INVALID_FILE_CONTENT';
  return 'FILE_REJECTED';
}

/**
 * Uploads many files into one collection: batched into multipart requests (fewer requests matter
 * under per-minute rate limits), several in flight, with progress after every request. A file the
 * service refuses is reported as skipped with its reason; a request that fails after retries marks
 * its files failed and the rest carry on. Authentication, permission and unknown-collection errors
 * reject at once, since every other request would fail the same way; so does a refused connection
 * (the server is gone), as an UploadInterruptedError carrying what was done and what was not sent.
 */
/** A batch's answer, file by file: the response names files, not positions, so they are matched back in order, per file name. */
function recordBatch(batch: BatchPlanItem[], data: BatchUpload, record: (o: UploadOutcome) => void): void {
  const byName = new Map<string, BatchPlanItem[]>();
  for (const item of batch) byName.set(item.file.name, [...(byName.get(item.file.name) ?? []), item]);
  const take = (name: string) => byName.get(name)?.shift();
  const of = (item: BatchPlanItem) => ({ index: item.index, filename: item.file.name, size: item.file.blob.size });
  for (const doc of data.uploaded) {
    const item = take(doc.original_filename);
    if (item) record({ ...of(item), status: 'uploaded', document: doc });
  }
  for (const s of data.skipped) {
    const item = take(s.filename);
    if (item) record({ ...of(item), status: 'skipped', reason: s.reason, code: skipCode(s) });
  }
  // Anything unmatched (a name the server rewrote) gets an honest answer rather than silence.
  for (const rest of byName.values())
    for (const item of rest) record({ ...of(item), status: 'failed', error: new DocsiftError('The service did not report on this file.') });
}

/** The outcomes so far, in input order, and split by status. */
function summarize(outcomes: (UploadOutcome | undefined)[]): UploadManyResult {
  const results = outcomes.filter((o): o is UploadOutcome => !!o);
  return {
    results,
    uploaded: results.flatMap((o) => (o.status === 'uploaded' ? [o.document] : [])),
    skipped: results.flatMap((o) =>
      o.status === 'skipped' ? [{ index: o.index, filename: o.filename, reason: o.reason, code: o.code }] : [],
    ),
    failed: results.flatMap((o) => (o.status === 'failed' ? [{ index: o.index, filename: o.filename, error: o.error }] : [])),
  };
}

export async function uploadMany(
  t: Transport,
  loader: FileLoader | undefined,
  collectionUuid: string,
  sources: UploadSource[],
  opts: UploadManyOptions = {},
): Promise<UploadManyResult> {
  const batchSize = opts.metadataOf ? 1 : Math.min(MAX_BATCH_FILES, Math.max(1, opts.batchSize ?? 20));
  const named = await Promise.all(sources.map((s, index) => toNamedBlob(s, loader).then((file) => ({ index, file }))));
  const outcomes: (UploadOutcome | undefined)[] = new Array(sources.length);
  const progress: UploadProgress = {
    filesTotal: named.length,
    filesDone: 0,
    bytesTotal: 0,
    bytesDone: 0,
    uploaded: 0,
    skipped: 0,
    failed: 0,
  };
  const record = (o: UploadOutcome) => {
    outcomes[o.index] = o;
    progress.filesDone++;
    progress.bytesDone += o.size;
    progress[o.status]++;
  };

  const sendable: BatchPlanItem[] = [];
  for (const item of named) {
    progress.bytesTotal += item.file.blob.size;
    if (item.file.blob.size > MAX_FILE_BYTES) {
      record({
        index: item.index,
        filename: item.file.name,
        size: item.file.blob.size,
        status: 'skipped',
        code: 'FILE_TOO_LARGE',
        reason: 'File exceeds the 50 MiB limit.',
      });
    } else sendable.push(item);
  }
  opts.onProgress?.({ ...progress });

  const call: CallOptions = { timeoutMs: t.uploadTimeoutMs, signal: opts.signal };
  const fields = { tags: opts.tags, sourceType: opts.sourceType, metadata: opts.metadata };

  const sendOne = async (item: BatchPlanItem) => {
    const size = item.file.blob.size;
    try {
      const data = await t.postForm(
        '/api/v1/collections/{uuid}/documents/',
        collectionUuid,
        () =>
          uploadForm('file', [item.file], opts.metadataOf ? { ...fields, metadata: opts.metadataOf(item.file.name, item.index) } : fields),
        call,
      );
      record({ index: item.index, filename: item.file.name, size, status: 'uploaded', document: data as UploadedDocument });
    } catch (err) {
      if (isFatal(err) || !(err instanceof DocsiftError)) throw err;
      if (err instanceof ApiError && err.status === 400)
        record({ index: item.index, filename: item.file.name, size, status: 'skipped', reason: err.message, code: err.code });
      else record({ index: item.index, filename: item.file.name, size, status: 'failed', error: err });
    }
  };

  const sendBatch = async (batch: BatchPlanItem[]) => {
    if (batch.length === 1) return sendOne(batch[0]!);
    let data: BatchUpload;
    try {
      const form = () =>
        uploadForm(
          'files',
          batch.map((b) => b.file),
          fields,
        );
      data = (await t.postForm('/api/v1/collections/{uuid}/documents/', collectionUuid, form, call)) as BatchUpload;
    } catch (err) {
      if (isFatal(err) || !(err instanceof DocsiftError)) throw err;
      // A whole-request 400 says nothing about which file was at fault: send them one by one to find out.
      if (err instanceof ApiError && err.status === 400) {
        for (const item of batch) await sendOne(item);
        return;
      }
      for (const item of batch)
        record({ index: item.index, filename: item.file.name, size: item.file.blob.size, status: 'failed', error: err });
      return;
    }
    recordBatch(batch, data, record);
  };

  const summary = () => summarize(outcomes);
  try {
    await runPool(planBatches(sendable, batchSize, opts.maxBatchBytes ?? 32 * 1024 * 1024), opts.concurrency ?? 4, async (batch) => {
      await sendBatch(batch);
      opts.onProgress?.({ ...progress });
    });
  } catch (err) {
    if (!(err instanceof ConnectionError)) throw err;
    const result = summary();
    const unsent = named.map((n) => n.index).filter((i) => !outcomes[i]);
    const sentBytes = result.results.reduce((n, o) => n + (o.status === 'failed' ? 0 : o.size), 0);
    throw new UploadInterruptedError(
      `${err.message}. The upload stopped there: ${result.uploaded.length} of ${named.length} files uploaded (${sentBytes} bytes), ` +
        `${result.skipped.length} refused, ${result.failed.length} failed in flight, ${unsent.length} not sent.`,
      result,
      unsent,
      { cause: err, code: err.code },
    );
  }
  return summary();
}
