import type { SettledResult } from '@docsift/sdk';
import { defineCommand, intFlag, stringFlag } from '../../command.js';
import type { Context } from '../../context.js';
import { createProgress } from '../../ui/progress.js';

export function waitJson(s: SettledResult, labels?: Map<string, string>) {
  return {
    total: s.documents.length,
    indexed: s.indexed.length,
    failed: s.failed.length,
    pending: s.pending.length,
    timed_out: s.timedOut,
    documents: s.documents.map((d) => ({
      uuid: d.uuid,
      ...(labels?.has(d.uuid) ? { path: labels.get(d.uuid) } : {}),
      status: d.status,
      ...(d.title ? { title: d.title } : {}),
      ...(d.chunks_count !== undefined ? { chunks_count: d.chunks_count } : {}),
      ...(d.status === 'failed' ? { error_message: d.error_message ?? '' } : {}),
    })),
  };
}

export function printWaitSummary(ctx: Context, s: SettledResult, labels?: Map<string, string>): void {
  const o = ctx.out;
  const parts = [
    o.green(`${s.indexed.length} indexed`),
    s.failed.length ? o.red(`${s.failed.length} failed`) : `0 failed`,
    `${s.pending.length} pending`,
  ];
  o.line(`Indexing: ${parts.join(', ')}${s.timedOut ? o.yellow(' (timed out)') : ''}.`);
  for (const f of s.failed) o.line(`  ${o.red('✗')} ${labels?.get(f.uuid) ?? f.title ?? f.uuid} — ${f.error_message || 'no reason given'}`);
}

interface Options {
  uuids: string[];
  timeoutMs: number;
  collection: string | undefined;
  quiet: boolean;
}

export default defineCommand<Options>({
  name: 'wait <uuids...>',
  summary: 'Wait until documents are indexed or failed (exit 1 if any failed or the timeout passed)',
  help: `Examples:
  docsift docs wait 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f
  docsift docs wait $(docsift docs list -c handbook --status pending --json | jq -r '.[].uuid') -c handbook --timeout 300`,
  options: (cmd) =>
    cmd
      .option('--timeout <seconds>', 'give up after this long', '600')
      .option('-c, --collection <slug>', 'the collection they are in (faster for many documents)')
      .option('-q, --quiet', 'no progress output'),
  parse: (args, flags) => ({
    uuids: (args[0] as unknown as string[]) ?? [],
    timeoutMs: intFlag(flags.timeout, '--timeout', { max: 86_400 })! * 1000,
    collection: stringFlag(flags.collection),
    quiet: !!flags.quiet,
  }),
  async run(ctx, opts) {
    const client = await ctx.client();
    const progress = await createProgress(ctx, 'wait', { quiet: opts.quiet });
    let settled: SettledResult;
    try {
      settled = await client.documents.waitForSettled(opts.uuids, {
        timeoutMs: opts.timeoutMs,
        ...(opts.collection ? { collection: opts.collection } : {}),
        onProgress: (p) => progress.update(p),
      });
    } finally {
      await progress.done();
    }
    const code = settled.failed.length || settled.timedOut ? 1 : 0;
    ctx.out.result(waitJson(settled), () => printWaitSummary(ctx, settled));
    return code;
  },
});
