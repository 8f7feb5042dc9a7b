import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { DocumentMetadata, SettledResult } from '@docsift/sdk';
import { defineCommand, intFlag, repeat, stringFlag } from '../../command.js';
import { metaFlags } from '../../where.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatBytes } from '../../output.js';
import { resolveCollection } from '../../resolve.js';
import { executeSync, type SyncFailure } from '../../sync-run.js';
import { localFiles, planSync, type RemoteDoc } from '../../sync.js';
import { createProgress } from '../../ui/progress.js';
import { printWaitSummary, waitJson } from './wait.js';

export interface SyncOptions {
  dir: string;
  collection: string | undefined;
  delete: boolean;
  dryRun: boolean;
  tags: string | undefined;
  /** --meta key=value: metadata of every uploaded or replaced file. */
  metadata: DocumentMetadata | undefined;
  /** --path-key: the metadata key that receives each file's relative path. */
  pathKey: string | undefined;
  concurrency: number;
  batchSize: number;
  wait: boolean;
  timeoutMs: number;
  quiet: boolean;
  strict: boolean;
}

async function remoteDocs(ctx: Context, slug: string): Promise<RemoteDoc[]> {
  const client = await ctx.client();
  const out: RemoteDoc[] = [];
  for await (const d of client.documents.list({ collection: slug, limit: 500 })) out.push(d);
  return out;
}

export default defineCommand<SyncOptions>({
  name: 'sync <dir>',
  summary: 'Make a collection mirror a folder: upload new files, replace changed ones, skip unchanged ones (CI)',
  help: `Files are matched to documents by their path relative to <dir> (kept by the service as the
document's original_filename) and compared by SHA-256 (the document's content_sha256): new files
are uploaded in batches, changed ones replaced in place (same uuid), unchanged ones skipped without
sending a byte. With --delete, documents whose file is gone, and duplicates of one path left by
earlier uploads, are deleted. Text and URL documents are never touched. Files of types the service
does not take, dot-files and node_modules are left out. A run over an unchanged tree makes two or
three requests; a run that was interrupted is completed by running it again.
The exit code is 1 when anything failed (or, with --wait, failed to index).

Examples:
  docsift docs sync ./handbook -c handbook --delete
  docsift docs sync ./handbook -c handbook --dry-run
  docsift docs sync ./docs -c product-docs --delete --wait --json > sync.json   # in CI
  docsift docs sync ./src -c code --meta repo=acme/api --meta commit=$GIT_SHA --path-key path
Metadata (--meta, --path-key) is sent with files that are uploaded or replaced; unchanged files keep theirs.`,
  options: (cmd) =>
    cmd
      .option('-c, --collection <collection>', 'target collection (uuid, slug or name)')
      .option('--delete', 'delete documents whose file is gone (and duplicates of one path)')
      .option('-n, --dry-run', 'show what would change; change nothing')
      .option('-t, --tags <tags>', 'comma-separated tags for uploaded and replaced files')
      .option('--meta <key=value>', 'metadata for uploaded and replaced files (repeatable; 2024 is a number)', repeat)
      .option('--path-key <key>', 'also put each file’s relative path in this metadata key (one request per new file)')
      .option('--concurrency <n>', 'requests in flight', '4')
      .option('--batch-size <n>', 'new files per upload request, 1–100', '20')
      .option('-w, --wait', 'wait until every uploaded or replaced document is indexed or failed')
      .option('--timeout <seconds>', 'with --wait: give up after this long', '600')
      .option('-q, --quiet', 'no progress output')
      .option('--strict', 'exit 1 when any file was skipped, too'),
  parse: ([dir], flags) => ({
    dir: dir!,
    collection: stringFlag(flags.collection),
    delete: !!flags.delete,
    dryRun: !!flags.dryRun,
    tags: stringFlag(flags.tags),
    metadata: metaFlags(flags.meta as string[] | undefined),
    pathKey: stringFlag(flags.pathKey),
    concurrency: intFlag(flags.concurrency, '--concurrency', { max: 32 })!,
    batchSize: intFlag(flags.batchSize, '--batch-size', { max: 100 })!,
    wait: !!flags.wait,
    timeoutMs: intFlag(flags.timeout, '--timeout', { max: 86_400 })! * 1000,
    quiet: !!flags.quiet,
    strict: !!flags.strict,
  }),
  async run(ctx, opts) {
    const info = await stat(opts.dir).catch(() => undefined);
    if (!info?.isDirectory()) throw new UsageError(`${opts.dir} is not a directory.`, 'docs sync takes a folder; docs upload takes files.');
    const collection = await resolveCollection(ctx, opts.collection);
    const client = await ctx.client();
    const [local, remote] = await Promise.all([localFiles(opts.dir), remoteDocs(ctx, collection.slug)]);
    const plan = await planSync(local, remote, { delete: opts.delete });

    const uploaded: { key: string; path: string; uuid?: string }[] = [];
    const replaced: { key: string; path: string; uuid: string }[] = [];
    const deleted: { key: string; uuid: string; reason: string }[] = [];
    const skipped = plan.skipped.map(
      (s) => ({ key: s.file.key, path: s.file.path, reason: s.reason, code: s.code }) as Record<string, string>,
    );
    const failed: SyncFailure[] = [];
    let bytesSent = 0;

    if (opts.dryRun) {
      uploaded.push(...plan.upload.map((f) => ({ key: f.key, path: f.path })));
      replaced.push(...plan.replace.map((p) => ({ key: p.file.key, path: p.file.path, uuid: p.doc.uuid })));
      deleted.push(...plan.delete.map((r) => ({ key: r.doc.original_filename, uuid: r.doc.uuid, reason: r.reason })));
    } else {
      await executeSync(ctx, opts, collection.uuid, plan, { uploaded, replaced, deleted, skipped, failed, sent: (n) => (bytesSent += n) });
    }

    let settled: SettledResult | undefined;
    const indexedUuids = [...uploaded, ...replaced].flatMap((u) => (u.uuid ? [u.uuid] : []));
    if (opts.wait && !opts.dryRun && indexedUuids.length) {
      const waitProgress = await createProgress(ctx, 'wait', { quiet: opts.quiet });
      try {
        settled = await client.documents.waitForSettled(indexedUuids, {
          collection: collection.slug,
          timeoutMs: opts.timeoutMs,
          onProgress: (p) => waitProgress.update(p),
        });
      } finally {
        await waitProgress.done();
      }
    }

    const kept = plan.kept.map((r) => ({ key: r.doc.original_filename, uuid: r.doc.uuid, reason: r.reason }));
    const counts = {
      uploaded: uploaded.length,
      replaced: replaced.length,
      unchanged: plan.unchanged.length,
      deleted: deleted.length,
      kept: kept.length,
      skipped: skipped.length,
      failed: failed.length,
    };
    const labels = new Map([...uploaded, ...replaced].flatMap((u) => (u.uuid ? [[u.uuid, u.key] as [string, string]] : [])));
    const summary = {
      collection: { uuid: collection.uuid, slug: collection.slug, name: collection.name },
      directory: path.resolve(opts.dir),
      dry_run: opts.dryRun,
      counts,
      bytes_sent: bytesSent,
      uploaded,
      replaced,
      deleted,
      kept,
      skipped,
      failed,
      ...(settled ? { wait: waitJson(settled, labels) } : {}),
    };
    ctx.out.result(summary, () => printSummary(ctx, summary, settled, labels));
    const bad = failed.length || (settled && (settled.failed.length || settled.timedOut)) || (opts.strict && skipped.length);
    return bad ? 1 : 0;
  },
});

function printSummary(
  ctx: Context,
  s: {
    collection: { name: string; slug: string };
    dry_run: boolean;
    counts: Record<string, number>;
    bytes_sent: number;
    uploaded: { key: string }[];
    replaced: { key: string }[];
    deleted: { key: string; reason: string }[];
    kept: { key: string; reason: string }[];
    skipped: Record<string, string>[];
    failed: SyncFailure[];
  },
  settled: SettledResult | undefined,
  labels: Map<string, string>,
): void {
  const o = ctx.out;
  const c = s.counts;
  const target = `${o.bold(s.collection.name)} (${s.collection.slug})`;
  // Sent, then refused (the service's checks): counted in the bytes sent, and sent again next run.
  const refused = s.skipped.filter((k) => !k.reason?.endsWith('(not sent)')).length;
  if (s.dry_run) {
    o.line(
      `Dry run for ${target}: would upload ${c.uploaded}, replace ${c.replaced}, delete ${c.deleted}; ${c.unchanged} unchanged. Nothing was changed.`,
    );
    for (const u of s.uploaded) o.line(`  ${o.green('+')} ${u.key}`);
    for (const r of s.replaced) o.line(`  ${o.yellow('~')} ${r.key}`);
    for (const d of s.deleted) o.line(`  ${o.red('-')} ${d.key}${d.reason === 'duplicate' ? o.dim(' (duplicate)') : ''}`);
  } else {
    o.line(
      `${c.failed ? o.red('✗') : o.green('✓')} Synced to ${target}: ${c.uploaded} uploaded, ${c.replaced} replaced, ${c.unchanged} unchanged, ${c.deleted} deleted${refused ? `, ${refused} refused by the server` : ''} (${formatBytes(s.bytes_sent)} sent).`,
    );
  }
  if (s.skipped.length) {
    o.line(o.yellow(`Skipped ${s.skipped.length}:`));
    for (const k of s.skipped) o.line(`  ${k.key} — ${k.reason}`);
    if (refused) o.line(o.dim('Files the server refused are sent again by every run until they are fixed or removed.'));
  }
  if (s.failed.length) {
    o.line(o.red(`Failed ${s.failed.length}:`));
    for (const f of s.failed) o.line(`  ${f.key} (${f.action}) — ${f.error}`);
    o.line(o.dim('Run the same command again to finish: unchanged files are not sent twice.'));
  }
  if (s.kept.length)
    o.line(
      o.dim(
        `${s.kept.length} document${s.kept.length === 1 ? '' : 's'} without a local file (or duplicated) kept; --delete removes them: ${s.kept
          .slice(0, 5)
          .map((k) => k.key)
          .join(', ')}${s.kept.length > 5 ? ', …' : ''}`,
      ),
    );
  if (settled) printWaitSummary(ctx, settled, labels);
}
