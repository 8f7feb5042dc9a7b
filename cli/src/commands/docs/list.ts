import type { DocumentListItem, DocumentStatus, ListDocumentsQuery } from '@docsift/sdk';
import { choiceFlag, defineCommand, intFlag, stringFlag } from '../../command.js';
import { formatBytes, formatDate } from '../../output.js';
import { facetFields, printFacets } from '../../ui/facets.js';
import { filterFlags } from '../../where.js';

const shellWord = (s: string) => (/^[\w./:@,+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command that shows the page after this one: the same filters and page size, from `cursor`. */
export function nextPageCommand(query: ListDocumentsQuery, limit: number, cursor: string): string {
  const args = ['docsift', 'docs', 'list'];
  if (query.collection) args.push('-c', shellWord(query.collection));
  if (query.tag) args.push('--tag', shellWord(query.tag));
  if (query.status) args.push('--status', query.status);
  args.push('--limit', String(limit), '--cursor', cursor);
  return args.join(' ');
}

interface Options {
  query: ListDocumentsQuery;
  limit: number;
  all: boolean;
  /** --facets: value counts over every matching document (not only the page shown). */
  facets?: string[];
  /** Warnings about the --where expression (printed to stderr). */
  notes: string[];
}

export default defineCommand<Options>({
  name: 'list',
  aliases: ['ls'],
  summary: 'Documents in visible collections, newest first',
  help: `Examples:
  docsift docs list -c research-papers --status failed
  docsift docs list --tag 2026 --all --json | jq length
  docsift docs list --where 'original_filename prefix contracts/ and year >= 2024'
  docsift docs list -c contracts --facets tags,metadata.dept

--facets prints how many matching documents carry each value of the fields named (tags,
collection, metadata.<key>), counted over every matching document (the newest 10,000), not only
those shown; with --json the answer is {"documents": […], "facets": {…}, "counted": n, "truncated": false}.`,
  options: (cmd) =>
    cmd
      .option('-c, --collection <slug>', 'only this collection (slug)')
      .option('--tag <text>', 'tags containing this text (case-insensitive)')
      .option('--status <status>', 'pending, indexed or failed')
      .option('--where <expr>', "filter, readable: 'year >= 2024 and dept = legal'")
      .option('--filter <json>', 'filter as JSON; with --where, both must hold')
      .option('-n, --limit <n>', 'show at most this many', '50')
      .option('--all', 'every matching document (follows all pages)')
      .option('--cursor <cursor>', 'start from this page cursor')
      .option('--facets <fields>', 'value counts over the matching documents: tags,collection,metadata.<key>'),
  parse: (_args, flags) => {
    const query: ListDocumentsQuery = {};
    const collection = stringFlag(flags.collection);
    const tag = stringFlag(flags.tag);
    const status = choiceFlag<DocumentStatus>(flags.status, '--status', ['pending', 'indexed', 'failed']);
    const cursor = stringFlag(flags.cursor);
    if (collection) query.collection = collection;
    if (tag) query.tag = tag;
    if (status) query.status = status;
    if (cursor) query.cursor = cursor;
    const notes: string[] = [];
    const filter = filterFlags(stringFlag(flags.where), stringFlag(flags.filter), notes);
    if (filter) query.filter = filter;
    const limit = intFlag(flags.limit, '--limit')!;
    query.limit = Math.min(500, limit);
    return { query, limit, all: !!flags.all, notes, facets: facetFields(flags.facets) };
  },
  async run(ctx, { query, limit, all, notes, facets }) {
    for (const n of notes) ctx.out.warn(n);
    const client = await ctx.client();
    let rows: DocumentListItem[];
    let nextCursor: string | null = null;
    if (all) rows = await client.documents.list({ ...query, limit: 500 }).toArray();
    else {
      rows = [];
      for await (const page of client.documents.list(query).pages()) {
        rows.push(...page.data.slice(0, limit - rows.length));
        nextCursor = page.nextCursor;
        if (rows.length >= limit || !page.hasNextPage()) break;
      }
    }
    const more = nextCursor && rows.length >= limit;
    const { limit: _l, cursor: _c, ...scope } = query;
    const counts = facets ? await client.documents.facets(facets, scope) : undefined;
    const answer = counts ? { documents: rows, facets: counts.facets, counted: counts.documents, truncated: counts.truncated } : rows;
    ctx.out.result(answer, () => {
      const o = ctx.out;
      const statusStyle = (t: string, d: DocumentListItem) =>
        d.status === 'indexed' ? o.green(t) : d.status === 'failed' ? o.red(t) : o.yellow(t);
      o.table(
        rows,
        [
          { header: 'TITLE', value: (d) => d.title, max: 40 },
          { header: 'STATUS', value: (d) => d.status, style: statusStyle },
          { header: 'TYPE', value: (d) => d.source_type },
          { header: 'CHUNKS', value: (d) => String(d.chunks_count), align: 'right' },
          { header: 'SIZE', value: (d) => formatBytes(d.file_size), align: 'right' },
          { header: 'COLLECTION', value: (d) => d.collection_slug, max: 24 },
          { header: 'TAGS', value: (d) => d.tags.join(','), max: 24 },
          { header: 'CREATED', value: (d) => formatDate(d.created_at) },
          { header: 'UUID', value: (d) => d.uuid, style: (t) => o.dim(t) },
        ],
        'No documents. Upload some: docsift docs upload <paths…> --collection <slug>',
      );
      if (counts) {
        o.line();
        printFacets(o, counts.facets);
        o.note(o.dim(`counted over ${counts.documents} document(s)${counts.truncated ? ' (the newest; more match)' : ''}`));
      }
    });
    if (more) {
      // The cursor continues this filtered list only: the offered command repeats the filters.
      const next = nextPageCommand(query, limit, nextCursor!);
      ctx.out.note(
        ctx.json ? `more documents: ${next} --json (or --all)` : ctx.out.dim(`Showing ${rows.length}; more with --all or: ${next}`),
      );
    }
  },
});
