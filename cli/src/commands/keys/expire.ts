import type { KeyExpiry } from '@docsift/sdk';
import { choiceFlag, defineCommand } from '../../command.js';
import { UsageError } from '../../errors.js';
import { resolveKey } from '../../resolve.js';
import { EXPIRY_CHOICES } from './create.js';

export default defineCommand<{ ref: string | undefined; expiresIn: KeyExpiry }>({
  name: 'expire [key]',
  summary: 'Set when a key expires, counted from now (also renews an expired key)',
  help: 'Example:\n  docsift keys expire svc_AbCdEfGh --in 90d',
  options: (cmd) => cmd.requiredOption('--in <when>', `${EXPIRY_CHOICES.join(', ')}`),
  parse: ([ref], flags) => {
    const expiresIn = choiceFlag<KeyExpiry>(flags.in, '--in', EXPIRY_CHOICES);
    if (!expiresIn) throw new UsageError('--in is required.');
    return { ref, expiresIn };
  },
  async run(ctx, { ref, expiresIn }) {
    const key = await resolveKey(ctx, ref);
    const updated = await (await ctx.client()).keys.update(key.uuid, { expires_in: expiresIn });
    ctx.out.result(updated, () =>
      ctx.out.line(`${updated.name} (${updated.prefix}…) now ${updated.expires_at ? `expires ${updated.expires_at}` : 'never expires'}.`),
    );
  },
});
