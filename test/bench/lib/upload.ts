// Loading a corpus through the real API: batch uploads with a few requests in flight, then
// waiting until nothing is pending. Reusable by any benchmark that needs an indexed corpus.
import type { Sql } from '../../../daemon/src/db/client.js';
import type { CorpusFile } from './corpus.js';
import { expectStatus, type ApiCall, type TimedResponse } from './http.js';
import { percentiles, type Percentiles } from './metrics.js';

export interface UploadResult {
  startedAt: number;
  finishedAt: number;
  uploaded: number;
  skipped: { filename: string; reason: string }[];
  requests: number;
  bytes: number;
  /** per-request latency of the batch uploads, ms */
  requestMs: Percentiles;
}

/** Uploads files as `files` batches (at most batchSize per request, `concurrency` requests at once). */
export async function uploadCorpus(
  api: ApiCall,
  collectionId: string,
  files: CorpusFile[],
  opts: { batchSize?: number; concurrency?: number; tags?: string } = {},
): Promise<UploadResult> {
  const batchSize = Math.min(100, opts.batchSize ?? 100);
  const batches: CorpusFile[][] = [];
  for (let i = 0; i < files.length; i += batchSize) batches.push(files.slice(i, i + batchSize));
  const result: UploadResult = {
    startedAt: Date.now(),
    finishedAt: 0,
    uploaded: 0,
    skipped: [],
    requests: 0,
    bytes: 0,
    requestMs: percentiles([]),
  };
  const times: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      const form = new FormData();
      if (opts.tags) form.append('tags', opts.tags);
      for (const f of batch) form.append('files', new Blob([f.data as Uint8Array<ArrayBuffer>], { type: f.mediaType }), f.name);
      const r = expectStatus(
        await api<{ total_uploaded: number; skipped: { filename: string; reason: string }[] }>(
          'POST',
          `/api/v1/collections/${collectionId}/documents/`,
          { body: form, timeoutMs: 300_000 },
        ),
        201,
        'batch upload',
      );
      times.push(r.ms);
      result.requests++;
      result.uploaded += r.body.total_uploaded;
      result.skipped.push(...r.body.skipped);
      result.bytes += batch.reduce((s, f) => s + f.data.byteLength, 0);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 3) }, lane));
  result.finishedAt = Date.now();
  result.requestMs = percentiles(times);
  return result;
}

export interface IndexProgress {
  pending: number;
  indexed: number;
  failed: number;
  chunks: number;
  firstIndexedAt: number | undefined;
  lastIndexedAt: number | undefined;
  /** last status change of a failed document */
  lastFailedAt: number | undefined;
}

/** Counts straight from the database: the API has no cheap count, and timestamps are exact here. */
export async function indexProgress(sql: Sql): Promise<IndexProgress> {
  const [r] = await sql<
    { pending: number; indexed: number; failed: number; chunks: number; first: Date | null; last: Date | null; last_failed: Date | null }[]
  >`
    select count(*) filter (where status = 'pending')::int as pending,
           count(*) filter (where status = 'indexed')::int as indexed,
           count(*) filter (where status = 'failed')::int as failed,
           coalesce(sum(chunks_count) filter (where status = 'indexed'), 0)::int as chunks,
           min(indexed_at) as first, max(indexed_at) as last,
           max(updated_at) filter (where status = 'failed') as last_failed
      from documents where deleted_at is null`;
  return {
    pending: r!.pending,
    indexed: r!.indexed,
    failed: r!.failed,
    chunks: r!.chunks,
    firstIndexedAt: r!.first?.getTime(),
    lastIndexedAt: r!.last?.getTime(),
    lastFailedAt: r!.last_failed?.getTime(),
  };
}

/**
 * Polls until the API lists no pending document (GET /documents/?status=pending&limit=1), printing
 * progress from the database now and then. Resolves with timedOut instead of hanging forever.
 */
export async function waitForIndexed(
  api: ApiCall,
  sql: Sql,
  opts: {
    timeoutMs: number;
    pollMs?: number;
    onProgress?: (p: IndexProgress, elapsedMs: number) => void;
    progressEveryMs?: number;
    /** Called every poll; throw to give up (e.g. when the worker process died). */
    check?: () => void | Promise<void>;
  },
): Promise<{ progress: IndexProgress; timedOut: boolean }> {
  const started = Date.now();
  let lastReport = started;
  for (;;) {
    await opts.check?.();
    const r = expectStatus(await api<unknown[]>('GET', '/api/v1/documents/?status=pending&limit=1'), 200, 'list pending');
    const done = Array.isArray(r.body) && r.body.length === 0;
    const timedOut = Date.now() - started > opts.timeoutMs;
    if (done || timedOut) return { progress: await indexProgress(sql), timedOut: !done };
    if (opts.onProgress && Date.now() - lastReport >= (opts.progressEveryMs ?? 10_000)) {
      lastReport = Date.now();
      opts.onProgress(await indexProgress(sql), Date.now() - started);
    }
    await new Promise((res) => setTimeout(res, opts.pollMs ?? 500));
  }
}

/** Failed documents with their messages, through the API: the list (following the Link cursor), then the detail of up to `detailLimit` for the message. */
export async function failedDocuments(api: ApiCall, detailLimit = 50): Promise<{ title: string; error_message: string }[]> {
  const listed: { uuid: string; title: string }[] = [];
  let path: string | undefined = '/api/v1/documents/?status=failed&limit=500';
  while (path) {
    const r: TimedResponse<{ uuid: string; title: string }[]> = expectStatus(
      await api<{ uuid: string; title: string }[]>('GET', path),
      200,
      'list failed',
    );
    listed.push(...r.body);
    path = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
  }
  const out: { title: string; error_message: string }[] = [];
  for (const [i, d] of listed.entries()) {
    if (i >= detailLimit) {
      out.push({ title: d.title, error_message: '(not fetched)' });
      continue;
    }
    const r = await api<{ error_message?: string }>('GET', `/api/v1/documents/${d.uuid}/`);
    out.push({ title: d.title, error_message: r.status === 200 ? (r.body.error_message ?? '') : `(HTTP ${r.status})` });
  }
  return out;
}
