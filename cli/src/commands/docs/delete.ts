import { defineCommand } from '../../command.js';
import { confirmOrYes } from '../../resolve.js';

export default defineCommand<{ uuid: string; yes: boolean }>({
  name: 'delete <uuid>',
  aliases: ['rm'],
  summary: 'Delete a document (asks first unless --yes)',
  help: `Examples:
  docsift docs delete 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f
  docsift docs delete 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f --yes`,
  options: (cmd) => cmd.option('-y, --yes', 'do not ask for confirmation'),
  parse: ([uuid], flags) => ({ uuid: uuid!, yes: !!flags.yes }),
  async run(ctx, { uuid, yes }) {
    if (!(await confirmOrYes(ctx, yes, `Delete document ${uuid}?`))) return 1;
    await (await ctx.client()).documents.delete(uuid);
    ctx.out.result({ uuid, deleted: true }, () => ctx.out.line(`Deleted document ${uuid}.`));
  },
});
