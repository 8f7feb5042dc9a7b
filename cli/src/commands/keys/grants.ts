import { defineCommand } from '../../command.js';
import { resolveKey } from '../../resolve.js';

export default defineCommand<{ ref: string | undefined }>({
  name: 'grants [key]',
  summary: "A scoped key's collection grants",
  help: `Examples:
  docsift keys grants ci-uploader
  docsift keys grants svc_AbCdEfGh --json`,
  parse: ([ref]) => ({ ref }),
  async run(ctx, { ref }) {
    const key = await resolveKey(ctx, ref);
    const grants = await (await ctx.client()).keys.grants(key.uuid);
    ctx.out.result(grants, () => {
      if (key.is_full_access) ctx.out.note(ctx.out.dim(`${key.name} is a full-access key: grants do not limit it.`));
      ctx.out.table(
        grants,
        [
          { header: 'COLLECTION', value: (g) => g.collection },
          { header: 'PERMISSION', value: (g) => g.permission },
        ],
        'No grants.',
      );
    });
  },
});
