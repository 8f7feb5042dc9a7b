import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import type { Sql, Tx } from '../db/client.js';
import type { AppDeps, Caller, RateTier } from '../types.js';
import { hashPassword } from './passwords.js';

export const SESSION_COOKIE = 'docsift_session';
/** Signed out after this long without a request. */
export const SESSION_IDLE_MS = 2 * 60 * 60_000;
/** Signed out this long after sign-in, however active. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000;
// last_seen_at is written at most this often: a page view is not worth a row update each time.
const TOUCH_GRANULARITY_MS = 60_000;
// Session callers have no API key; this id matches no key row and no grant.
export const NO_KEY_ID = '00000000-0000-0000-0000-000000000000';

export interface SessionUser {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  isAdmin: boolean;
}

export interface Session {
  user: SessionUser;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** True when the browser reached us over https (directly, through a proxy, or per PUBLIC_URL). */
export function isHttps(c: Context, publicUrl?: string): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (forwarded === 'https') return true;
  return publicUrl?.startsWith('https:') ?? false;
}

function cookieOptions(c: Context, deps: AppDeps, maxAgeSec: number) {
  return { path: '/', httpOnly: true, sameSite: 'Lax' as const, secure: isHttps(c, deps.config.PUBLIC_URL), maxAge: maxAgeSec };
}

/** Starts a session for a user (always a fresh id: nothing set before sign-in survives it) and sets the cookie. */
export async function startSession(c: Context, deps: AppDeps, userId: string, meta: { ip: string }): Promise<void> {
  const raw = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  await deps.sql`
    insert into sessions (id_hash, user_id, csrf_token, created_at, last_seen_at, expires_at, ip, user_agent)
    values (${sha256(raw)}, ${userId}, ${randomBytes(32).toString('base64url')}, ${now}, ${now}, ${expiresAt},
            ${meta.ip.slice(0, 100)}, ${(c.req.header('user-agent') ?? '').slice(0, 300)})`;
  // Housekeeping rides along with sign-in instead of needing a job: everyone's sessions past their
  // absolute end (indexed), and this user's idle ones.
  await deps.sql`
    delete from sessions
     where expires_at <= ${now} or (user_id = ${userId} and last_seen_at <= ${new Date(now.getTime() - SESSION_IDLE_MS)})`;
  setCookie(c, SESSION_COOKIE, raw, cookieOptions(c, deps, SESSION_ABSOLUTE_MS / 1000));
}

interface SessionRow {
  user_id: string;
  organization_id: string;
  email: string;
  name: string;
  is_admin: boolean;
  user_active: boolean;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

/** The live session of this request's cookie, or null (unknown, expired, idle too long, or user disabled). */
export async function loadSession(c: Context, deps: AppDeps): Promise<Session | null> {
  const raw = getCookie(c, SESSION_COOKIE);
  if (!raw || raw.length > 100) return null;
  const idHash = sha256(raw);
  const rows = await deps.sql<SessionRow[]>`
    select s.user_id, u.organization_id, u.email, u.name, u.is_admin, u.is_active as user_active,
           s.csrf_token, s.created_at, s.last_seen_at, s.expires_at
      from sessions s join users u on u.id = s.user_id
     where s.id_hash = ${idHash}`;
  const row = rows[0];
  if (!row) return null;
  const now = deps.clock.now();
  const idleEnd = row.last_seen_at.getTime() + SESSION_IDLE_MS;
  if (!row.user_active || row.expires_at.getTime() <= now.getTime() || idleEnd <= now.getTime()) {
    await deps.sql`delete from sessions where id_hash = ${idHash}`;
    return null;
  }
  if (now.getTime() - row.last_seen_at.getTime() > TOUCH_GRANULARITY_MS) {
    await deps.sql`update sessions set last_seen_at = ${now} where id_hash = ${idHash}`;
  }
  return {
    user: { id: row.user_id, organizationId: row.organization_id, email: row.email, name: row.name, isAdmin: row.is_admin },
    csrfToken: row.csrf_token,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** Sign-out: the row goes, so the cookie is worthless even if it was copied. */
export async function endSession(c: Context, deps: AppDeps): Promise<void> {
  const raw = getCookie(c, SESSION_COOKIE);
  if (raw && raw.length <= 100) await deps.sql`delete from sessions where id_hash = ${sha256(raw)}`;
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c, deps.config.PUBLIC_URL) });
}

/**
 * The session user as a Caller: full access to what the user owns or subscribes to, like a
 * full-access key of that user. The rate tier is the best among the user's active keys, so keys
 * created from the UI keep the account's tier.
 */
export async function sessionCaller(sql: Sql, user: SessionUser): Promise<Caller> {
  const rows = await sql<{ tier: RateTier | null }[]>`
    select (array_agg(rate_tier order by case rate_tier when 'pro' then 0 when 'basic' then 1 else 2 end))[1] as tier
      from api_keys where user_id = ${user.id} and is_active`;
  return {
    keyId: NO_KEY_ID,
    keyPrefix: '',
    userId: user.id,
    orgId: user.organizationId,
    isFullAccess: true,
    isAdmin: user.isAdmin,
    tier: rows[0]?.tier ?? 'free',
    via: 'session',
  };
}

/** Sets (or replaces) a user's password and signs out all of that user's sessions. */
export async function setUserPassword(tx: Tx, userId: string, password: string, now: Date): Promise<void> {
  const hash = await hashPassword(password);
  await tx`update users set password_hash = ${hash}, password_changed_at = ${now} where id = ${userId}`;
  await tx`delete from sessions where user_id = ${userId}`;
}
