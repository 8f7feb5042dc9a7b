import type { DocumentMetadata, UpdateDocument } from '@docsift/sdk';
import { defineCommand, repeat, stringFlag } from '../../command.js';
import { CliError, UsageError } from '../../errors.js';
import { isUuid } from '../../resolve.js';
import { formatMetaValue, metaFlags } from '../../where.js';

interface Options {
  uuid: string;
  title: string | undefined;
  /** Replaces the tags; [] clears them (`--tags ''`). */
  tags: string[] | undefined;
  /** Keys to set (merged into the current metadata). */
  set: DocumentMetadata | undefined;
  /** Keys to remove. */
  unset: string[];
}

export default defineCommand<Options>({
  name: 'update <uuid>',
  summary: "Change a document's title, tags or metadata in place (no reprocessing)",
  help: `--tags replaces the tags (--tags '' removes them all). --meta sets keys and keeps the others;
--unset-meta removes keys. The document is read, changed and written back in two requests, so
an edit made by someone else between the two can be overwritten. Search sees the new values at once.

Examples:
  docsift docs update 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f --title "ACME master agreement"
  docsift docs update 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f --tags contracts,signed --meta year=2024 --meta dept=legal
  docsift docs update 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f --unset-meta draft --json`,
  options: (cmd) =>
    cmd
      .option('--title <title>', 'new title')
      .option('-t, --tags <tags>', "comma-separated tags, replacing the current ones ('' removes them)")
      .option('--meta <key=value>', "set a metadata key (repeatable): 2024 is a number, true a boolean, '2024' text", repeat)
      .option('--unset-meta <key>', 'remove a metadata key (repeatable)', repeat),
  parse: ([uuid], flags) => {
    if (!isUuid(uuid ?? '')) throw new UsageError(`"${uuid}" is not a document uuid.`, 'See `docsift docs list` for the uuids.');
    const tags = stringFlag(flags.tags);
    const o: Options = {
      uuid: uuid!,
      title: stringFlag(flags.title),
      tags:
        tags === undefined
          ? undefined
          : tags
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
      set: metaFlags(flags.meta as string[] | undefined),
      unset: (flags.unsetMeta as string[] | undefined) ?? [],
    };
    if (o.title === undefined && o.tags === undefined && !o.set && !o.unset.length)
      throw new UsageError('Nothing to change.', 'Pass --title, --tags, --meta or --unset-meta.');
    return o;
  },
  async run(ctx, o) {
    const client = await ctx.client();
    const changes: UpdateDocument = {};
    if (o.title !== undefined) changes.title = o.title;
    if (o.tags !== undefined) changes.tags = o.tags;
    if (o.set || o.unset.length) {
      // The service replaces metadata whole: read the current object (the list item, without the text).
      const [current] = (await client.documents.list({ filter: { document: o.uuid }, limit: 1 })).data;
      if (!current)
        throw new CliError(
          `Document ${o.uuid} not found.`,
          1,
          'See `docsift docs list` for the documents this key can see.',
          'DOCUMENT_NOT_FOUND',
        );
      const metadata = { ...current.metadata, ...o.set };
      for (const k of o.unset) delete metadata[k];
      changes.metadata = metadata;
    }
    const d = await client.documents.update(o.uuid, changes);
    ctx.out.result(d, () => {
      const out = ctx.out;
      out.line(`${out.green('✓')} Updated ${out.bold(d.title)} (${d.uuid}).`);
      out.fields([['Tags', d.tags.join(', ')], ...metadataLines(d.metadata)]);
    });
  },
});

/** "Metadata  dept=legal" then one indented line per further key, by name (`docs show`, `docs update`). */
export function metadataLines(meta: DocumentMetadata): [string, string | null][] {
  const entries = Object.entries(meta).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (!entries.length) return [['Metadata', null]];
  return entries.map(([k, v], i) => [i ? '' : 'Metadata', `${k}=${formatMetaValue(v)}`]);
}
