// Carrying out a sync plan (cli/src/sync.ts decides it): uploads in batches, then replaces, then
// deletes, so a run cut short never leaves fewer documents than files; progress on one view.
import {
  AuthenticationError,
  ConnectionError,
  DocsiftError,
  PermissionError,
  TimeoutError,
  UploadInterruptedError,
  type UploadManyResult,
} from '@docsift/sdk';
import type { DocumentMetadata } from '@docsift/sdk';
import { fileFromPath } from '@docsift/sdk/node';
import type { Context } from './context.js';
import { CliError } from './errors.js';
import { formatBytes } from './output.js';
import type { LocalFile, SyncPlan } from './sync.js';
import { createProgress } from './ui/progress.js';

export interface SyncFailure {
  key: string;
  action: 'upload' | 'replace' | 'delete';
  uuid?: string;
  error: string;
  code?: string;
}

/** Runs `work` over `items`, `concurrency` at a time; a rejection stops new starts and is rethrown. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      await work(item).catch((err: unknown) => {
        failure ??= { err };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
  if (failure) throw failure.err;
}

/** Refused (after the client's retries): the server is gone, and every later request would be refused too. */
const isServerGone = (err: unknown): err is ConnectionError =>
  err instanceof ConnectionError && err.beforeSend && !(err instanceof TimeoutError);
// Every other request would fail the same way: stop instead of reporting each.
const isFatal = (err: unknown) =>
  err instanceof AuthenticationError || err instanceof PermissionError || isServerGone(err) || !(err instanceof DocsiftError);
const failureOf = (err: unknown) => ({
  error: (err as Error).message,
  ...(err && typeof err === 'object' && 'code' in err ? { code: String((err as { code: unknown }).code) } : {}),
});

export interface SyncOutcomes {
  uploaded: { key: string; path: string; uuid?: string }[];
  replaced: { key: string; path: string; uuid: string }[];
  deleted: { key: string; uuid: string; reason: string }[];
  skipped: Record<string, string>[];
  failed: SyncFailure[];
  /** Bytes of files whose request went out and was answered: uploaded, replaced or refused by the service. */
  sent: (bytes: number) => void;
}

/**
 * The one line a sync cut short by a lost server ends with: what it did, what it did not, how to
 * finish (a re-run sends only what is missing or changed).
 */
function serverGone(err: ConnectionError, out: SyncOutcomes, plan: SyncPlan, sentBytes: number): CliError {
  const planned = plan.upload.length + plan.replace.length + plan.delete.length;
  const done = out.uploaded.length + out.replaced.length + out.deleted.length;
  const what = `${out.uploaded.length} uploaded, ${out.replaced.length} replaced, ${out.deleted.length} deleted (${formatBytes(sentBytes)} sent)`;
  const cause = err.cause instanceof ConnectionError ? err.cause : err;
  return new CliError(
    `${cause.message}. Sync stopped after ${done} of ${planned} changes: ${what}. Run the same command again to finish; files already sent are not sent twice.`,
    1,
    undefined,
    'CONNECTION_LOST',
  );
}

function fileMetadata(opts: { metadata?: DocumentMetadata | undefined; pathKey?: string | undefined }, key: string): DocumentMetadata {
  return { ...opts.metadata, ...(opts.pathKey ? { [opts.pathKey]: key } : {}) };
}

/** The shared metadata, or each file's own when its path goes in (uploadMany then sends one file per request). */
function metadataOptions(opts: { metadata?: DocumentMetadata | undefined; pathKey?: string | undefined }) {
  if (opts.pathKey) return { metadataOf: (name: string) => fileMetadata(opts, name) };
  return opts.metadata ? { metadata: opts.metadata } : {};
}

/** Uploads, then replaces, then deletes: a run cut short never leaves fewer documents than files. */
/** Each file of a batch upload as the outcome its result says; `sent` counts the bytes the service received. */
function recordUploads(r: UploadManyResult, files: LocalFile[], out: SyncOutcomes, sent: (n: number) => void): void {
  for (const o of r.results) {
    const f = files[o.index]!;
    if (o.status === 'uploaded') {
      out.uploaded.push({ key: f.key, path: f.path, uuid: o.document.uuid });
      sent(f.size);
    } else if (o.status === 'skipped') {
      // Refused by the service after it received the file: sent, and sent again by the next run.
      out.skipped.push({ key: f.key, path: f.path, reason: o.reason, code: o.code });
      sent(f.size);
    } else out.failed.push({ key: f.key, action: 'upload', ...failureOf(o.error) });
  }
}

export async function executeSync(
  ctx: Context,
  opts: {
    quiet: boolean;
    tags: string | undefined;
    metadata?: DocumentMetadata | undefined;
    pathKey?: string | undefined;
    concurrency: number;
    batchSize: number;
  },
  collectionUuid: string,
  plan: SyncPlan,
  out: SyncOutcomes,
): Promise<void> {
  const client = await ctx.client({ pooled: true });
  const progress = await createProgress(ctx, 'upload', { quiet: opts.quiet });
  const sending: LocalFile[] = [...plan.upload, ...plan.replace.map((p) => p.file)];
  const state = {
    filesTotal: sending.length,
    filesDone: 0,
    bytesTotal: sending.reduce((n, f) => n + f.size, 0),
    bytesDone: 0,
    uploaded: 0,
    replaced: 0,
    skipped: 0,
    failed: 0,
  };
  // Replaces count on top of what the batch uploads report.
  const base = { filesDone: 0, bytesDone: 0, uploaded: 0, replaced: 0, skipped: 0, failed: 0 };
  let sentBytes = 0;
  const sent = (n: number) => {
    sentBytes += n;
    out.sent(n);
  };
  const show = () => progress.update({ ...state });
  try {
    if (plan.upload.length) {
      const sources = await Promise.all(plan.upload.map(async (f) => ({ name: f.key, data: (await fileFromPath(f.path)).blob })));
      let r: UploadManyResult;
      let stopped: UploadInterruptedError | undefined;
      try {
        r = await client.documents.uploadMany(collectionUuid, sources, {
          tags: opts.tags,
          ...metadataOptions(opts),
          concurrency: opts.concurrency,
          batchSize: opts.batchSize,
          onProgress: (p) => {
            Object.assign(state, {
              filesDone: p.filesDone,
              bytesDone: p.bytesDone,
              uploaded: p.uploaded,
              skipped: p.skipped,
              failed: p.failed,
            });
            show();
          },
        });
      } catch (err) {
        if (!(err instanceof UploadInterruptedError)) throw err;
        stopped = err;
        r = err.result;
      }
      Object.assign(base, {
        filesDone: state.filesDone,
        bytesDone: state.bytesDone,
        uploaded: state.uploaded,
        skipped: state.skipped,
        failed: state.failed,
      });
      recordUploads(r, plan.upload, out, sent);
      if (stopped) throw stopped;
    }
    await pool(plan.replace, opts.concurrency, async ({ file, doc }) => {
      try {
        await client.documents.replace(
          doc.uuid,
          { name: file.key, data: (await fileFromPath(file.path)).blob },
          {
            tags: opts.tags,
            ...(opts.metadata || opts.pathKey ? { metadata: fileMetadata(opts, file.key) } : {}),
          },
        );
        out.replaced.push({ key: file.key, path: file.path, uuid: doc.uuid });
        sent(file.size);
        base.replaced++;
      } catch (err) {
        if (isFatal(err)) throw err;
        out.failed.push({ key: file.key, action: 'replace', uuid: doc.uuid, ...failureOf(err) });
        base.failed++;
      }
      base.filesDone++;
      base.bytesDone += file.size;
      Object.assign(state, base);
      show();
    });
    await pool(plan.delete, opts.concurrency, async ({ doc, reason }) => {
      try {
        await client.documents.delete(doc.uuid);
        out.deleted.push({ key: doc.original_filename, uuid: doc.uuid, reason });
      } catch (err) {
        if (isFatal(err)) throw err;
        out.failed.push({ key: doc.original_filename, action: 'delete', uuid: doc.uuid, ...failureOf(err) });
      }
    });
  } catch (err) {
    // The progress view is closed (finally) before the caller prints this one line.
    throw isServerGone(err) ? serverGone(err, out, plan, sentBytes) : err;
  } finally {
    await progress.done();
  }
}
