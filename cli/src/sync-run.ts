// Carrying out a sync plan (cli/src/sync.ts decides it): uploads in batches, then replaces, then
// deletes, so a run cut short never leaves fewer documents than files; progress on one view.
import { AuthenticationError, DocsiftError, PermissionError } from '@docsift/sdk';
import type { DocumentMetadata } from '@docsift/sdk';
import { fileFromPath } from '@docsift/sdk/node';
import type { Context } from './context.js';
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

// Every other request would fail the same way: stop instead of reporting each.
const isFatal = (err: unknown) => err instanceof AuthenticationError || err instanceof PermissionError || !(err instanceof DocsiftError);
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
  sent: (bytes: number) => void;
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
  const client = await ctx.client();
  const progress = await createProgress(ctx, 'upload', { quiet: opts.quiet });
  const sending: LocalFile[] = [...plan.upload, ...plan.replace.map((p) => p.file)];
  const state = {
    filesTotal: sending.length,
    filesDone: 0,
    bytesTotal: sending.reduce((n, f) => n + f.size, 0),
    bytesDone: 0,
    uploaded: 0,
    skipped: 0,
    failed: 0,
  };
  // Replaces count on top of what the batch uploads report.
  const base = { filesDone: 0, bytesDone: 0, uploaded: 0, skipped: 0, failed: 0 };
  const show = () => progress.update({ ...state });
  try {
    if (plan.upload.length) {
      const sources = await Promise.all(plan.upload.map(async (f) => ({ name: f.key, data: (await fileFromPath(f.path)).blob })));
      const r = await client.documents.uploadMany(collectionUuid, sources, {
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
      Object.assign(base, {
        filesDone: state.filesDone,
        bytesDone: state.bytesDone,
        uploaded: state.uploaded,
        skipped: state.skipped,
        failed: state.failed,
      });
      for (const o of r.results) {
        const f = plan.upload[o.index]!;
        if (o.status === 'uploaded') {
          out.uploaded.push({ key: f.key, path: f.path, uuid: o.document.uuid });
          out.sent(f.size);
        } else if (o.status === 'skipped')
          out.skipped.push({ key: f.key, path: f.path, reason: o.reason, ...(o.code ? { code: o.code } : {}) });
        else out.failed.push({ key: f.key, action: 'upload', ...failureOf(o.error) });
      }
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
        out.sent(file.size);
        base.uploaded++;
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
  } finally {
    await progress.done();
  }
}
