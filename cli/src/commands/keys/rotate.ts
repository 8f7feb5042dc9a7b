import { defineCommand } from '../../command.js';
import { updateProfile } from '../../config.js';
import { resolveKey } from '../../resolve.js';
import { printSecret } from './secret.js';

export default defineCommand<{ ref: string | undefined }>({
  name: 'rotate [key]',
  summary: 'New key (uuid, secret) with the same name, grants, tier and expiry period, restarted; the old one stops at once',
  help: `Rotation issues a new key record: a new uuid, prefix and secret, with the old key's name,
access (full or scoped, with the same collection grants and permissions), rate tier and expiry
period. The expiry restarts from now: a key created with --expires 90d expires 90 days after the
rotation (a key without expiry stays without). The old key stops working immediately and is listed
as revoked (\`docsift keys list --all\`); a revoked key cannot be rotated.
When the rotated key is the one this profile uses, the profile is updated with the new secret.

Examples:
  docsift keys rotate ci-uploader
  docsift keys rotate svc_AbCdEfGh --json | jq -r .key`,
  parse: ([ref]) => ({ ref }),
  async run(ctx, { ref }) {
    const client = await ctx.client();
    const [key, current, creds] = await Promise.all([resolveKey(ctx, ref), client.keys.current(), ctx.credentials()]);
    const rotated = await client.keys.rotate(key.uuid);
    // The old secret is dead now: keep the saved profile working.
    const profileUpdated = key.uuid === current.uuid && creds.source === 'profile';
    if (profileUpdated) await updateProfile(creds.profileName, { api_key: rotated.key }, ctx.configFile);
    ctx.out.result({ ...rotated, replaced_uuid: key.uuid, profile_updated: profileUpdated }, () => {
      printSecret(ctx, rotated, 'Rotated');
      if (profileUpdated) ctx.out.note(`Profile "${creds.profileName}" now uses the new key.`);
      else if (key.uuid === current.uuid) ctx.out.warn('This was the key in use (from DOCSIFT_API_KEY): update the variable.');
    });
  },
});
