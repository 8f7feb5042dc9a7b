import type { DocumentMetadata, SettledResult, UploadManyResult } from '@docsift/sdk';
import type { DocsiftClient } from '@docsift/sdk/node';
import { defineCommand, intFlag, repeat, stringFlag } from '../../command.js';
import { CliError, UsageError } from '../../errors.js';
import { expandInputs } from '../../files.js';
import { formatBytes } from '../../output.js';
import { resolveCollection } from '../../resolve.js';
import { hashFile } from '../../sync.js';
import { createProgress } from '../../ui/progress.js';
import { metaFlags } from '../../where.js';
import { printWaitSummary, waitJson } from './wait.js';

interface Options {
  paths: string[];
  collection: string | undefined;
  tags: string | undefined;
  title: string | undefined;
  /** --meta key=value: the metadata of every file. */
  metadata: DocumentMetadata | undefined;
  concurrency: number;
  batchSize: number;
  wait: boolean;
  timeoutMs: number;
  quiet: boolean;
  strict: boolean;
  skipExisting: boolean;
}

/** --skip-existing: one listing of the collection, then the files whose hash it already holds stay home. */
async function splitExisting(client: DocsiftClient, slug: string, files: string[]) {
  const held = new Map<string, string>();
  for await (const d of client.documents.list({ collection: slug, limit: 500 }))
    if (d.content_sha256 && !held.has(d.content_sha256)) held.set(d.content_sha256, d.uuid);
  const existing: { path: string; uuid: string }[] = [];
  const fresh: string[] = [];
  for (const f of files) {
    const uuid = held.size ? held.get(await hashFile(f)) : undefined;
    if (uuid) existing.push({ path: f, uuid });
    else fresh.push(f);
  }
  return { existing, fresh };
}

export default defineCommand<Options>({
  name: 'upload <paths...>',
  summary: 'Upload files, directories (recursively) or glob patterns into a collection',
  help: `Files are sent in batches (--batch-size, at most 100 per request) with --concurrency requests in flight.
Files the service refuses (unsupported type, over 50 MiB, content not matching the extension) are
skipped and listed with the reason; dot-files and node_modules are not picked up from directories.
The exit code is 1 when any file failed to upload (or, with --wait, failed to index); 0 otherwise
(add --strict to also fail on skipped files). Progress is live on a terminal and one line every
2 s in logs, so the same command suits CI bulk ingestion of thousands of files.

Examples:
  docsift docs upload ./papers --collection research --tags 2024,papers --wait
  docsift docs upload 'reports/**/*.pdf' -c finance --json > upload.json
  docsift docs upload notes.md -c research --title "Meeting notes"
  docsift docs upload contracts/*.pdf -c legal --meta dept=legal --meta year=2024   # filter: --where 'year >= 2024'
  docsift docs upload ./inbox -c research --skip-existing   # only files whose content is not there yet
To mirror a folder (replace changed files, delete gone ones), use \`docsift docs sync\`.`,
  options: (cmd) =>
    cmd
      .option('-c, --collection <collection>', 'target collection (uuid, slug or name)')
      .option('-t, --tags <tags>', 'comma-separated tags for every file')
      .option('--title <title>', 'document title (single file only; default: the file name)')
      .option('--meta <key=value>', "metadata for every file (repeatable): 2024 is a number, true a boolean, '2024' text", repeat)
      .option('--concurrency <n>', 'requests in flight', '4')
      .option('--batch-size <n>', 'files per request, 1–100', '20')
      .option('-w, --wait', 'wait until every uploaded document is indexed or failed')
      .option('--timeout <seconds>', 'with --wait: give up after this long', '600')
      .option('-q, --quiet', 'no progress output')
      .option('--strict', 'exit 1 when any file was skipped, too')
      .option('--skip-existing', 'do not send files whose content (SHA-256) the collection already holds'),
  parse: (args, flags) => {
    const paths = (args[0] as unknown as string[] | undefined) ?? [];
    const title = stringFlag(flags.title);
    if (title !== undefined && paths.length !== 1) throw new UsageError('--title applies to a single file.');
    return {
      paths,
      collection: stringFlag(flags.collection),
      tags: stringFlag(flags.tags),
      title,
      metadata: metaFlags(flags.meta as string[] | undefined),
      concurrency: intFlag(flags.concurrency, '--concurrency', { max: 32 })!,
      batchSize: intFlag(flags.batchSize, '--batch-size', { max: 100 })!,
      wait: !!flags.wait,
      timeoutMs: intFlag(flags.timeout, '--timeout', { max: 86_400 })! * 1000,
      quiet: !!flags.quiet,
      strict: !!flags.strict,
      skipExisting: !!flags.skipExisting,
    };
  },
  async run(ctx, opts) {
    const collection = await resolveCollection(ctx, opts.collection);
    const client = await ctx.client({ pooled: true });
    const expanded = await expandInputs(opts.paths);
    const { missing } = expanded;
    if (!expanded.files.length) {
      for (const m of missing) ctx.out.note(`  ${m.path}: ${m.reason}`);
      throw new CliError('Nothing to upload.', 1, 'Give files, directories or quoted glob patterns.');
    }
    const { existing, fresh: files } = opts.skipExisting
      ? await splitExisting(client, collection.slug, expanded.files)
      : { existing: [], fresh: expanded.files };

    const progress = await createProgress(ctx, 'upload', { quiet: opts.quiet });
    let result: UploadManyResult = { results: [], uploaded: [], skipped: [], failed: [] };
    try {
      if (!files.length) {
        // Everything is there already (--skip-existing).
      } else if (opts.title !== undefined) {
        // A title applies to one document, so this is a plain single upload.
        const doc = await client.documents.upload(collection.uuid, files[0]!, {
          title: opts.title,
          tags: opts.tags,
          metadata: opts.metadata,
        });
        result = {
          results: [{ index: 0, filename: doc.original_filename, size: doc.file_size, status: 'uploaded', document: doc }],
          uploaded: [doc],
          skipped: [],
          failed: [],
        };
      } else {
        result = await client.documents.uploadMany(collection.uuid, files, {
          tags: opts.tags,
          metadata: opts.metadata,
          concurrency: opts.concurrency,
          batchSize: opts.batchSize,
          onProgress: (p) => progress.update(p),
        });
      }
    } finally {
      await progress.done();
    }

    const pathOf = (index: number) => files[index]!;
    const uploaded = result.results.flatMap((r) => (r.status === 'uploaded' ? [{ path: pathOf(r.index), ...r.document }] : []));
    const skipped = [
      ...missing.map((m) => ({ path: m.path, filename: m.path, reason: m.reason, code: 'NOT_FOUND' })),
      ...result.skipped.map((s) => ({
        path: pathOf(s.index),
        filename: s.filename,
        reason: s.reason,
        ...(s.code ? { code: s.code } : {}),
      })),
    ];
    const failed = result.failed.map((f) => ({
      path: pathOf(f.index),
      filename: f.filename,
      error: f.error.message,
      ...('code' in f.error ? { code: String((f.error as { code: unknown }).code) } : {}),
    }));
    const totalBytes = result.results.reduce((n, r) => n + r.size, 0);

    let settled: SettledResult | undefined;
    if (opts.wait && uploaded.length) {
      const waitProgress = await createProgress(ctx, 'wait', { quiet: opts.quiet });
      try {
        settled = await client.documents.waitForSettled(
          uploaded.map((u) => u.uuid),
          { collection: collection.slug, timeoutMs: opts.timeoutMs, onProgress: (p) => waitProgress.update(p) },
        );
      } finally {
        await waitProgress.done();
      }
    }

    const exitCode = failed.length || (settled && (settled.failed.length || settled.timedOut)) || (opts.strict && skipped.length) ? 1 : 0;
    const pathByUuid = new Map(uploaded.map((u) => [u.uuid, u.path]));
    const summary = {
      collection: { uuid: collection.uuid, slug: collection.slug, name: collection.name },
      total_files: expanded.files.length,
      total_bytes: totalBytes,
      total_uploaded: uploaded.length,
      total_skipped: skipped.length,
      total_failed: failed.length,
      ...(opts.skipExisting ? { total_existing: existing.length } : {}),
      uploaded,
      skipped,
      failed,
      ...(opts.skipExisting ? { existing } : {}),
      ...(settled ? { wait: waitJson(settled, pathByUuid) } : {}),
    };
    ctx.out.result(summary, () => {
      const o = ctx.out;
      const total = expanded.files.length;
      o.line(
        `${uploaded.length || existing.length ? o.green('✓') : o.red('✗')} Uploaded ${uploaded.length} of ${total} file${total === 1 ? '' : 's'} (${formatBytes(uploaded.reduce((n, u) => n + u.file_size, 0))}) to ${o.bold(collection.name)} (${collection.slug}).`,
      );
      if (existing.length) o.line(o.dim(`${existing.length} already in the collection with the same content: not sent.`));
      if (skipped.length) {
        o.line(o.yellow(`Skipped ${skipped.length}:`));
        for (const s of skipped) o.line(`  ${s.path} — ${s.reason}`);
      }
      if (failed.length) {
        o.line(o.red(`Failed ${failed.length}:`));
        for (const f of failed) o.line(`  ${f.path} — ${f.error}`);
      }
      if (settled) printWaitSummary(ctx, settled, pathByUuid);
      else if (uploaded.length)
        o.line(
          o.dim(
            `Processing runs in the background: \`docsift docs wait ${uploaded.length === 1 ? uploaded[0]!.uuid : '<uuid>…'}\` or add --wait.`,
          ),
        );
    });
    return exitCode;
  },
});
