import type { ApiKeyWithSecret } from '@docsift/sdk';
import type { Context } from '../../context.js';
import { formatDate } from '../../output.js';

/** Shows a newly issued secret exactly once: the key on stdout, the warning on stderr. Dates as `keys list` prints them. */
export function printSecret(ctx: Context, k: ApiKeyWithSecret, verb: string): void {
  const o = ctx.out;
  o.line(
    `${o.green('✓')} ${verb} key ${o.bold(k.name)} (${k.prefix}…, ${k.is_full_access ? 'full access' : 'scoped'}, expires ${formatDate(k.expires_at, 'never')}).`,
  );
  o.line();
  o.line(`  ${o.bold(k.key)}`);
  o.line();
  o.warn('Copy this key now: it is shown only once and cannot be retrieved later.');
}
