import { openAsBlob } from 'node:fs';
import { defineCommand, stringFlag } from '../../command.js';
import { resolveCollection } from '../../resolve.js';

export default defineCommand<{ file: string; into: string | undefined }>({
  name: 'import <archive>',
  summary: 'Rebuild a collection from an export archive (again: adds only what is missing)',
  help: `Examples:
  docsift collections import research-papers.docsift.tar
  docsift collections import research-papers.docsift.tar --into team-library   # into an existing collection
Documents are checked like uploads and processed in the background; exit 1 when some were refused.`,
  options: (cmd) => cmd.option('--into <collection>', 'an existing collection to import into (needs write access)'),
  parse: ([file], flags) => ({ file: file!, into: stringFlag(flags.into) }),
  async run(ctx, { file, into }) {
    const target = into ? await resolveCollection(ctx, into, '--into <collection>') : undefined;
    const archive = await openAsBlob(file);
    const r = await (await ctx.client()).collections.import(archive, target ? { collection: target.uuid } : {});
    ctx.out.result(r, () => {
      const c = r.collection;
      ctx.out.line(
        `${ctx.out.green('✓')} ${r.created_collection ? 'Created' : 'Imported into'} collection ${ctx.out.bold(c.name)} (slug ${ctx.out.cyan(c.slug)}): ` +
          `${r.imported} document(s) imported, ${r.already_present} already there${r.failed.length ? `, ${r.failed.length} refused` : ''}.`,
      );
      for (const f of r.failed) ctx.out.line(`  ${ctx.out.red('✗')} ${f.title}: ${f.reason}`);
      if (r.imported) ctx.out.line(`They are processed in the background: docsift docs list -c ${c.slug}`);
    });
    return r.failed.length ? 1 : 0;
  },
});
