import { choiceFlag, defineCommand } from '../../command.js';
import { resolveKey } from '../../resolve.js';

export default defineCommand<{ ref: string; collection: string; permission: 'read' | 'write' }>({
  name: 'grant <key> <collection>',
  summary: 'Give a scoped key read or write access to a collection (slug); changes an existing grant',
  help: `Examples:
  docsift keys grant ci-uploader research-papers --permission write
  docsift keys grant svc_AbCdEfGh handbook`,
  options: (cmd) => cmd.option('--permission <level>', 'read or write', 'read'),
  parse: ([ref, collection], flags) => ({
    ref: ref!,
    collection: collection!,
    permission: choiceFlag(flags.permission, '--permission', ['read', 'write'] as const)!,
  }),
  async run(ctx, { ref, collection, permission }) {
    const key = await resolveKey(ctx, ref);
    const g = await (await ctx.client()).keys.grant(key.uuid, { collection, permission });
    ctx.out.result({ key: key.uuid, ...g }, () =>
      ctx.out.line(`${key.name} (${key.prefix}…) has ${g.permission} access to ${g.collection}.`),
    );
  },
});
