import type { Sql } from '../db/client.js';
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { RateTier } from '../types.js';

export interface TierTarget {
  /** A key's UUID, or the prefix users see (`svc_nxRYedrD`, a trailing `…` is ignored). */
  key?: string | undefined;
  /** Every key of this user. */
  email?: string | undefined;
}

/**
 * Admin: sets the rate tier of one key (by UUID or visible prefix) or of every key of a user.
 * A prefix matching several keys is refused rather than guessed.
 */
export async function setKeyTier(sql: Sql, target: TierTarget, tier: RateTier): Promise<{ id: string; prefix: string }[]> {
  if (target.email) {
    const rows = await sql<{ id: string; prefix: string }[]>`
      update api_keys k set rate_tier = ${tier} from users u
       where u.id = k.user_id and lower(u.email) = lower(${target.email})
       returning k.id, k.prefix`;
    if (!rows.length) {
      const user = await sql`select 1 from users where lower(email) = lower(${target.email})`;
      throw new AppError(
        'VALIDATION_FAILED',
        user.length ? `User ${target.email} has no API keys.` : `No user with email ${target.email}.`,
      );
    }
    return rows;
  }
  const key = (target.key ?? '').trim().replace(/…$|\.\.\.$/, '');
  const matches = isUuid(key)
    ? await sql<{ id: string; prefix: string }[]>`select id, prefix from api_keys where id = ${key}::uuid`
    : await sql<{ id: string; prefix: string }[]>`select id, prefix from api_keys where prefix = ${key}`;
  if (!matches.length) throw new AppError('API_KEY_NOT_FOUND', `No API key ${key} (give a key UUID or its prefix, e.g. svc_AbCd1234).`);
  if (matches.length > 1)
    throw new AppError(
      'VALIDATION_FAILED',
      `The prefix ${key} matches ${matches.length} keys; give a key UUID (${matches.map((m) => m.id).join(', ')}).`,
    );
  await sql`update api_keys set rate_tier = ${tier} where id = ${matches[0]!.id}`;
  return matches;
}
