import type { ExpiryChoice } from '../auth/keys.js';
import type { RateTier } from '../types.js';
import type { Tx } from './client.js';

export interface KeyRecord {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  is_active: boolean;
  is_full_access: boolean;
  rate_tier: RateTier;
  expires_in: ExpiryChoice;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  rotated_from: string | null;
  created_at: Date;
}

export async function insertKey(
  tx: Tx,
  k: {
    userId: string;
    name: string;
    prefix: string;
    hash: Buffer;
    isFullAccess: boolean;
    tier: RateTier;
    expiresIn: ExpiryChoice;
    expiresAt: Date | null;
    rotatedFrom?: string | null;
    now: Date;
  },
): Promise<KeyRecord> {
  const rows = await tx<KeyRecord[]>`
    insert into api_keys (user_id, name, prefix, key_hash, is_full_access, rate_tier, expires_in, expires_at, rotated_from, created_at)
    values (${k.userId}, ${k.name}, ${k.prefix}, ${k.hash}, ${k.isFullAccess}, ${k.tier}, ${k.expiresIn}, ${k.expiresAt}, ${k.rotatedFrom ?? null}, ${k.now})
    returning id, user_id, name, prefix, is_active, is_full_access, rate_tier, expires_in, expires_at, last_used_at, revoked_at, rotated_from, created_at`;
  return rows[0]!;
}

export async function listKeysForUser(tx: Tx, userId: string): Promise<KeyRecord[]> {
  return tx<KeyRecord[]>`
    select id, user_id, name, prefix, is_active, is_full_access, rate_tier, expires_in, expires_at, last_used_at, revoked_at, rotated_from, created_at
      from api_keys where user_id = ${userId}
     order by created_at desc, id`;
}

export async function getKeyForUser(
  tx: Tx,
  userId: string,
  keyId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<KeyRecord | undefined> {
  const rows = opts.forUpdate
    ? await tx<KeyRecord[]>`
        select id, user_id, name, prefix, is_active, is_full_access, rate_tier, expires_in, expires_at, last_used_at, revoked_at, rotated_from, created_at
          from api_keys where id = ${keyId} and user_id = ${userId} for update`
    : await tx<KeyRecord[]>`
        select id, user_id, name, prefix, is_active, is_full_access, rate_tier, expires_in, expires_at, last_used_at, revoked_at, rotated_from, created_at
          from api_keys where id = ${keyId} and user_id = ${userId}`;
  return rows[0];
}
