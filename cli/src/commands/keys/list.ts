import type { ApiKey } from '@docsift/sdk';
import { defineCommand } from '../../command.js';
import { formatDate } from '../../output.js';

export default defineCommand<{ all: boolean }>({
  name: 'list',
  aliases: ['ls'],
  summary: "The user's keys, with grants (secrets are never shown again)",
  help: `Examples:
  docsift keys list
  docsift keys list --all --json`,
  options: (cmd) => cmd.option('-a, --all', 'include revoked and rotated keys'),
  parse: (_a, flags) => ({ all: !!flags.all }),
  async run(ctx, { all }) {
    const client = await ctx.client();
    const [keys, current] = await Promise.all([client.keys.list(), client.keys.current()]);
    const rows = all ? keys : keys.filter((k) => k.is_active);
    ctx.out.result(rows, () => {
      const o = ctx.out;
      const expired = (k: ApiKey) => !!k.expires_at && new Date(k.expires_at).getTime() <= Date.now();
      o.table(rows, [
        { header: '', value: (k) => (k.uuid === current.uuid ? '*' : '') },
        { header: 'NAME', value: (k) => k.name, max: 30 },
        { header: 'PREFIX', value: (k) => k.prefix },
        {
          header: 'TYPE',
          value: (k) =>
            k.is_full_access
              ? 'full access'
              : `scoped: ${k.grants.map((g) => `${g.collection}${g.permission === 'write' ? ' (write)' : ''}`).join(', ') || 'none'}`,
          max: 40,
        },
        { header: 'TIER', value: (k) => k.rate_tier },
        {
          header: 'EXPIRES',
          value: (k) => (k.expires_at ? formatDate(k.expires_at) : 'never'),
          style: (t, k) => (expired(k) ? o.red(t) : t),
        },
        { header: 'LAST USED', value: (k) => formatDate(k.last_used_at, 'never') },
        {
          header: 'STATE',
          value: (k) => (!k.is_active ? 'revoked' : expired(k) ? 'expired' : 'active'),
          style: (t, k) => (!k.is_active || expired(k) ? o.red(t) : o.green(t)),
        },
        { header: 'UUID', value: (k) => k.uuid, style: (t) => o.dim(t) },
      ]);
      o.note(o.dim('* the key in use'));
    });
  },
});
