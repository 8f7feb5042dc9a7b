import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { defineCommand, stringFlag } from '../../command.js';
import { formatBytes } from '../../output.js';
import { resolveCollection } from '../../resolve.js';
import { dispositionName } from '../docs/download.js';

export default defineCommand<{ ref: string; output: string | undefined }>({
  name: 'export <collection>',
  summary: 'Save a collection as an archive: its originals and a JSONL manifest (titles, tags, metadata, settings)',
  help: `Examples:
  docsift collections export research-papers                  # writes research-papers.docsift.tar
  docsift collections export research-papers -o backups/
  docsift collections export research-papers -o - | tar -t     # to stdout
Rebuild it on any docsift with: docsift collections import research-papers.docsift.tar`,
  options: (cmd) => cmd.option('-o, --output <path>', 'file or directory to write (default: <slug>.docsift.tar here; - for stdout)'),
  parse: ([ref], flags) => ({ ref: ref!, output: stringFlag(flags.output) }),
  async run(ctx, { ref, output }) {
    const c = await resolveCollection(ctx, ref);
    const res = await (await ctx.client()).collections.export(c.uuid);
    if (!res.body) throw new Error('The service sent no archive.');
    const body = Readable.fromWeb(res.body as never);
    if (output === '-') {
      await pipeline(body, process.stdout);
      return;
    }
    const name = dispositionName(res.headers.get('content-disposition')) ?? `${c.slug}.docsift.tar`;
    const isDir = output
      ? await stat(output).then(
          (s) => s.isDirectory(),
          () => false,
        )
      : false;
    const target = output ? (isDir || /[\\/]$/.test(output) ? path.join(output, name) : output) : name;
    // Written under another name first: an archive cut short never sits where a whole one is expected.
    const partial = `${target}.partial`;
    try {
      await pipeline(body, createWriteStream(partial));
      await rename(partial, target);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    const bytes = (await stat(target)).size;
    ctx.out.result({ collection: c.uuid, slug: c.slug, path: path.resolve(target), bytes }, () =>
      ctx.out.line(`Saved ${c.name} (${c.document_count} documents) to ${target} (${formatBytes(bytes)}).`),
    );
  },
});
