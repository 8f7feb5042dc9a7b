import { defineCommand } from '../../command.js';
import { formatBytes, formatDate, truncate } from '../../output.js';
import { metadataLines } from './update.js';

export default defineCommand<{ uuid: string; content: boolean; chunks: boolean }>({
  name: 'show <uuid>',
  summary: 'A document: status, error, metadata, and optionally its text or chunks',
  help: `Examples:
  docsift docs show 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f
  docsift docs show 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f --content | less`,
  options: (cmd) => cmd.option('--content', 'print the full extracted text').option('--chunks', 'list the chunks'),
  parse: ([uuid], flags) => ({ uuid: uuid!, content: !!flags.content, chunks: !!flags.chunks }),
  async run(ctx, { uuid, content, chunks }) {
    const d = await (await ctx.client()).documents.get(uuid);
    ctx.out.result(d, () => {
      const o = ctx.out;
      o.fields([
        ['Title', o.bold(d.title)],
        ['UUID', d.uuid],
        ['Status', d.status === 'indexed' ? o.green(d.status) : d.status === 'failed' ? o.red(d.status) : o.yellow(d.status)],
        ['Error', d.error_message],
        ['Type', d.source_type],
        ['File', `${d.original_filename} (${formatBytes(d.file_size)})`],
        ['Collection', `${d.collection_name} (${d.collection_slug})`],
        ['Tags', d.tags.join(', ')],
        ...metadataLines(d.metadata),
        ['Chunks', d.chunks_count],
        ['Created', formatDate(d.created_at)],
      ]);
      if (content) {
        o.line();
        o.line(d.content_text);
      }
      if (chunks) {
        o.line();
        for (const c of d.chunks)
          o.line(`${o.dim(`#${c.chunk_index}${c.page ? ` p.${c.page}` : ''}`)} ${truncate(c.content.replace(/\s+/g, ' '), 160)}`);
      }
    });
  },
});
