import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../db/client.js';
import { setUserPassword } from './sessions.js';

export const INVITE_TTL_MS = 7 * 24 * 60 * 60_000;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** A one-time token for the invite link; only its hash is stored. */
export async function createInvite(
  sql: Sql,
  userId: string,
  now: Date,
  ttlMs = INVITE_TTL_MS,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + ttlMs);
  await sql`insert into user_invites (token_hash, user_id, created_at, expires_at) values (${sha256(token)}, ${userId}, ${now}, ${expiresAt})`;
  return { token, expiresAt };
}

export interface InviteInfo {
  userId: string;
  email: string;
  expiresAt: Date;
}

/** The pending invite behind a token: unused, unexpired, for an active user; otherwise null. */
export async function findInvite(sql: Sql, token: string, now: Date): Promise<InviteInfo | null> {
  if (!TOKEN_RE.test(token)) return null;
  const rows = await sql<{ user_id: string; email: string; expires_at: Date }[]>`
    select i.user_id, u.email, i.expires_at
      from user_invites i join users u on u.id = i.user_id
     where i.token_hash = ${sha256(token)} and i.used_at is null and i.expires_at > ${now} and u.is_active`;
  const r = rows[0];
  return r ? { userId: r.user_id, email: r.email, expiresAt: r.expires_at } : null;
}

/**
 * Sets the password through an invite, once: the row is claimed with a conditional update, so two
 * concurrent submissions cannot both succeed. Every other open invite of the user dies with it.
 */
export async function acceptInvite(sql: Sql, token: string, password: string, now: Date): Promise<InviteInfo | null> {
  if (!TOKEN_RE.test(token)) return null;
  return sql.begin(async (tx) => {
    const rows = await tx<{ user_id: string; expires_at: Date }[]>`
      update user_invites i set used_at = ${now}
        from users u
       where i.token_hash = ${sha256(token)} and i.used_at is null and i.expires_at > ${now}
         and u.id = i.user_id and u.is_active
      returning i.user_id, i.expires_at`;
    const r = rows[0];
    if (!r) return null;
    await tx`update user_invites set used_at = ${now} where user_id = ${r.user_id} and used_at is null`;
    await setUserPassword(tx, r.user_id, password, now);
    const u = await tx<{ email: string }[]>`select email from users where id = ${r.user_id}`;
    return { userId: r.user_id, email: u[0]!.email, expiresAt: r.expires_at };
  }) as Promise<InviteInfo | null>;
}
