import { defineCommand } from '../../command.js';
import { confirmOrYes, resolveKey } from '../../resolve.js';

export default defineCommand<{ ref: string | undefined; yes: boolean }>({
  name: 'revoke [key]',
  summary: 'Deactivate a key immediately (asks first unless --yes)',
  help: `Examples:
  docsift keys revoke ci-uploader
  docsift keys revoke svc_AbCdEfGh --yes`,
  options: (cmd) => cmd.option('-y, --yes', 'do not ask for confirmation'),
  parse: ([ref], flags) => ({ ref, yes: !!flags.yes }),
  async run(ctx, { ref, yes }) {
    const key = await resolveKey(ctx, ref);
    if (!(await confirmOrYes(ctx, yes, `Revoke ${key.name} (${key.prefix}…)? Anything using it stops working.`))) return 1;
    const revoked = await (await ctx.client()).keys.revoke(key.uuid);
    ctx.out.result(revoked, () => ctx.out.line(`Revoked ${revoked.name} (${revoked.prefix}…).`));
  },
});
