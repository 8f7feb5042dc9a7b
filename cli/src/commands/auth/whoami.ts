import type { CurrentKey } from '@docsift/sdk';
import { defineCommand } from '../../command.js';
import { formatDate, relativeTime } from '../../output.js';

/** "ci-uploader (svc_AbCdEf…, full access)" */
export function describeKey(k: Pick<CurrentKey, 'name' | 'prefix' | 'is_full_access'>): string {
  return `${k.name} (${k.prefix}…, ${k.is_full_access ? 'full access' : 'scoped'})`;
}

export default defineCommand<Record<string, never>>({
  name: 'whoami',
  summary: 'Show the key in use: prefix, type, tier, expiry, organization and user',
  help: `Examples:
  docsift whoami
  docsift whoami --json | jq -r .rate_tier`,
  parse: () => ({}),
  async run(ctx) {
    const creds = await ctx.credentials();
    const client = await ctx.client();
    const k = await client.keys.current();
    const data = { url: creds.url, profile: creds.source === 'profile' ? creds.profileName : null, credentials_source: creds.source, ...k };
    ctx.out.result(data, () => {
      const o = ctx.out;
      const expiry = k.expires_at ? `${formatDate(k.expires_at)} (${relativeTime(k.expires_at)})` : 'never';
      o.fields([
        ['Server', creds.url],
        ['Profile', creds.source === 'env' ? 'DOCSIFT_API_KEY (environment)' : creds.profileName],
        ['Key', `${k.name} — ${k.prefix}…`],
        [
          'Type',
          k.is_full_access ? 'full access' : `scoped (${k.grants.map((g) => `${g.collection}:${g.permission}`).join(', ') || 'no grants'})`,
        ],
        ['Tier', k.rate_tier],
        ['Expires', k.expires_at && new Date(k.expires_at).getTime() < Date.now() ? o.red(`${expiry} — expired`) : expiry],
        ['Organization', `${k.organization.name} (${k.organization.uuid})`],
        ['User', `${k.user.email}${k.user.is_admin ? ' (admin)' : ''}`],
      ]);
    });
  },
});
