// Everything about API keys below the use cases: their format and hash, the Bearer header, and their
// statements (management and the per-request lookup). Key management itself is auth/key-management.ts.
import { createHash, randomBytes } from 'node:crypto';
import type { Sql, Tx } from '../db/client.js';
import { AppError } from '../errors.js';
import type { RateTier } from '../rate-tier.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX = 'svc_';
export const KEY_RANDOM_LENGTH = 40;
/** How many characters of the key are kept in clear for identification. */
export const KEY_DISPLAY_LENGTH = KEY_PREFIX.length + 8;

/** A CSPRNG string over base62, with rejection sampling so every character is uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(): { key: string; prefix: string; hash: Buffer } {
  const key = KEY_PREFIX + randomBase62(KEY_RANDOM_LENGTH);
  return { key, prefix: key.slice(0, KEY_DISPLAY_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The SHA-256 of the API key in an Authorization header: parsed and hashed once per request, for
 * both the key lookup and the rate limiter. Keys are looked up by this hash through a unique
 * index, so no secret is ever compared byte by byte in application code.
 */
export function bearerKeyHash(header: string | undefined): Buffer {
  const token = header ? BEARER.exec(header)?.[1] : undefined;
  if (!token) throw new AppError('AUTHENTICATION_REQUIRED', 'Authentication required: send "Authorization: Bearer <API_KEY>".');
  if (!looksLikeApiKey(token)) throw new AppError('INVALID_API_KEY', 'Invalid API key.');
  return hashApiKey(token);
}

export function looksLikeApiKey(token: string): boolean {
  return (
    token.length === KEY_PREFIX.length + KEY_RANDOM_LENGTH &&
    token.startsWith(KEY_PREFIX) &&
    /^[A-Za-z0-9]+$/.test(token.slice(KEY_PREFIX.length))
  );
}

export const EXPIRY_CHOICES = ['30d', '90d', '6m', '1y', 'never'] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

/** Expiry instant for a choice, counted from `from`; months are calendar months. */
export function expiryFrom(choice: ExpiryChoice, from: Date): Date | null {
  const d = new Date(from.getTime());
  switch (choice) {
    case '30d':
      return new Date(d.getTime() + 30 * 86_400_000);
    case '90d':
      return new Date(d.getTime() + 90 * 86_400_000);
    case '6m':
      d.setUTCMonth(d.getUTCMonth() + 6);
      return d;
    case '1y':
      d.setUTCFullYear(d.getUTCFullYear() + 1);
      return d;
    case 'never':
      return null;
  }
}

/** What a request needs of its key and the key's user (the per-request lookup). */
export interface KeyRow {
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

/**
 * The key with this hash, with its user, whatever their state (the guard tells the states apart).
 * limits/limiter.ts `countForKey` selects the same columns and counts the request in the same
 * statement; this one serves daemons without rate limits.
 */
export async function findKeyByHash(sql: Sql, keyHash: Buffer): Promise<KeyRow | undefined> {
  const rows = await sql<KeyRow[]>`
    select k.id as key_id, k.prefix, k.is_active as key_active, k.is_full_access, k.rate_tier,
           k.expires_at, k.last_used_at, u.id as user_id, u.is_active as user_active, u.is_admin,
           u.organization_id
      from api_keys k
      join users u on u.id = k.user_id
     where k.key_hash = ${keyHash}`;
  return rows[0];
}

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
