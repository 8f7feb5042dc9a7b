import { defineCommand } from '../../command.js';
import { resolveKey } from '../../resolve.js';

export default defineCommand<{ ref: string; collection: string }>({
  name: 'ungrant <key> <collection>',
  summary: "Remove a scoped key's access to a collection (slug)",
  help: `Examples:
  docsift keys ungrant ci-uploader research-papers`,
  parse: ([ref, collection]) => ({ ref: ref!, collection: collection! }),
  async run(ctx, { ref, collection }) {
    const key = await resolveKey(ctx, ref);
    await (await ctx.client()).keys.ungrant(key.uuid, collection);
    ctx.out.result({ key: key.uuid, collection, removed: true }, () =>
      ctx.out.line(`${key.name} (${key.prefix}…) no longer has access to ${collection}.`),
    );
  },
});
