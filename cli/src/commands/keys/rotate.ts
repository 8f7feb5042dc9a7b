import { defineCommand } from '../../command.js';
import { updateProfile } from '../../config.js';
import { resolveKey } from '../../resolve.js';
import { printSecret } from './secret.js';

export default defineCommand<{ ref: string | undefined }>({
  name: 'rotate [key]',
  summary: 'Issue a new secret with the same name and grants; the old one stops working at once',
  help: `When the rotated key is the one this profile uses, the profile is updated with the new secret.

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
