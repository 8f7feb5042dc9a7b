import type { WebhookConfig, WebhookConfigWithSecret } from '@docsift/sdk';
import { updateProfile } from '../../config.js';
import type { Context } from '../../context.js';

/** Prints a configuration; a secret in it is shown once and saved to the profile for `webhooks listen`. */
export async function reportWebhook(ctx: Context, w: WebhookConfig | WebhookConfigWithSecret, headline: string): Promise<void> {
  const secret = 'secret' in w ? w.secret : undefined;
  let savedTo: string | null = null;
  if (secret) {
    const creds = await ctx.credentials();
    if (creds.source === 'profile') {
      await updateProfile(creds.profileName, { webhook_secret: secret }, ctx.configFile);
      savedTo = creds.profileName;
    }
  }
  ctx.out.result({ ...w, ...(secret ? { secret_saved_to_profile: savedTo } : {}) }, () => {
    const o = ctx.out;
    o.line(headline);
    o.fields([
      ['URL', w.url],
      ['Active', w.configured ? (w.is_active ? o.green('yes') : o.yellow('no')) : '—'],
    ]);
    if (secret) {
      o.line();
      o.line(`  Signing secret: ${o.bold(secret)}`);
      o.line();
      o.warn(
        `The secret is shown only once.${savedTo ? ` Saved to profile "${savedTo}" for \`docsift webhooks listen\`.` : ' Store it where your receiver can read it.'}`,
      );
    }
  });
}
