import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors.js';
import type { AppDeps, AppEnv, Caller, RateTier } from '../types.js';
import { hashApiKey, looksLikeApiKey } from './keys.js';

interface KeyRow {
  key_id: string;
  prefix: string;
  key_active: boolean;
  is_full_access: boolean;
  rate_tier: RateTier;
  expires_at: Date | null;
  last_used_at: Date | null;
  user_id: string;
  user_active: boolean;
  is_admin: boolean;
  organization_id: string;
}

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Resolves a Bearer API key into a Caller. Keys are looked up by their SHA-256 hash through a
 * unique index, so no secret is ever compared byte by byte in application code.
 */
export async function authenticateKey(deps: AppDeps, header: string | undefined): Promise<Caller> {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match?.[1]) {
    throw new AppError('AUTHENTICATION_REQUIRED', 'Authentication required: send "Authorization: Bearer <API_KEY>".');
  }
  const token = match[1];
  if (!looksLikeApiKey(token)) throw new AppError('INVALID_API_KEY', 'Invalid API key.');
  const rows = await deps.sql<KeyRow[]>`
    select k.id as key_id, k.prefix, k.is_active as key_active, k.is_full_access, k.rate_tier,
           k.expires_at, k.last_used_at, u.id as user_id, u.is_active as user_active, u.is_admin,
           u.organization_id
      from api_keys k
      join users u on u.id = k.user_id
     where k.key_hash = ${hashApiKey(token)}`;
  const row = rows[0];
  // A revoked or rotated key is indistinguishable from an unknown one to the caller.
  if (!row?.key_active) throw new AppError('INVALID_API_KEY', 'Invalid API key.');
  if (!row.user_active) throw new AppError('USER_ACCOUNT_DISABLED', 'The account that owns this API key is disabled.');
  const now = deps.clock.now();
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) {
    throw new AppError('API_KEY_EXPIRED', `API key expired at ${row.expires_at.toISOString()}. Set a new expiry to renew it.`);
  }
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
    // Best effort and off the response path: a lost update only delays "last used" by a minute.
    deps.sql`update api_keys set last_used_at = ${now} where id = ${row.key_id}`.catch(() => {});
  }
  return {
    keyId: row.key_id,
    keyPrefix: row.prefix,
    userId: row.user_id,
    orgId: row.organization_id,
    isFullAccess: row.is_full_access,
    isAdmin: row.is_admin,
    tier: row.rate_tier,
    via: 'key',
  };
}

export function bearerAuth(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('caller', await authenticateKey(deps, c.req.header('authorization')));
    await next();
  };
}

/** Guard for actions scoped keys may never perform. */
export function requireFullAccess(caller: Caller, action: string): void {
  if (!caller.isFullAccess) {
    throw new AppError('SCOPED_KEY_FORBIDDEN', `Scoped API keys cannot ${action}. Use a full-access key.`);
  }
}
