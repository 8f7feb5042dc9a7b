import type { DocumentMetadata } from '@docsift/sdk';
import { defineCommand, intFlag, repeat, stringFlag } from '../../command.js';
import { createProgress } from '../../ui/progress.js';
import { metaFlags } from '../../where.js';
import { printWaitSummary, waitJson } from './wait.js';

interface Options {
  uuid: string;
  path: string;
  title: string | undefined;
  tags: string | undefined;
  /** --meta: the document's new metadata, whole; undefined keeps the current one. */
  metadata: DocumentMetadata | undefined;
  wait: boolean;
  timeoutMs: number;
}

export default defineCommand<Options>({
  name: 'replace <uuid> <path>',
  summary: "Replace a document's file, keeping its uuid (and title/tags unless given); it is processed again",
  help: `Examples:
  docsift docs replace 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f ./report-v2.pdf --wait
  docsift docs replace 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f notes.md --tags draft,2026
  docsift docs replace 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f report.pdf --meta year=2025 --meta dept=legal   # replaces all metadata`,
  options: (cmd) =>
    cmd
      .option('--title <title>', 'new title')
      .option('-t, --tags <tags>', 'new comma-separated tags')
      .option('--meta <key=value>', 'new metadata, replacing all of it (repeatable); without it the metadata stays', repeat)
      .option('-w, --wait', 'wait until it is indexed or failed')
      .option('--timeout <seconds>', 'with --wait', '600'),
  parse: ([uuid, path], flags) => ({
    uuid: uuid!,
    path: path!,
    title: stringFlag(flags.title),
    tags: stringFlag(flags.tags),
    metadata: metaFlags(flags.meta as string[] | undefined),
    wait: !!flags.wait,
    timeoutMs: intFlag(flags.timeout, '--timeout')! * 1000,
  }),
  async run(ctx, opts) {
    const client = await ctx.client();
    const doc = await client.documents.replace(opts.uuid, opts.path, { title: opts.title, tags: opts.tags, metadata: opts.metadata });
    if (!opts.wait) {
      ctx.out.result(doc, () =>
        ctx.out.line(`${ctx.out.green('✓')} Replaced ${doc.title} (${doc.uuid}) with ${opts.path}; status ${doc.status}.`),
      );
      return;
    }
    const progress = await createProgress(ctx, 'wait');
    const settled = await client.documents
      .waitForSettled(doc.uuid, { timeoutMs: opts.timeoutMs, onProgress: (p) => progress.update(p) })
      .finally(() => progress.done());
    ctx.out.result({ ...doc, wait: waitJson(settled) }, () => {
      ctx.out.line(`${ctx.out.green('✓')} Replaced ${doc.title} (${doc.uuid}) with ${opts.path}.`);
      printWaitSummary(ctx, settled);
    });
    return settled.failed.length || settled.timedOut ? 1 : 0;
  },
});
