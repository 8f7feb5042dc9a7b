import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Session } from '../auth/sessions.js';
import { isHttps } from '../auth/sessions.js';
import type { Logger } from '../logger.js';
import type { AppDeps, Caller } from '../types.js';

/** Form fields as parsed from an urlencoded body; repeated fields become arrays. */
export type FormFields = Record<string, string | File | (string | File)[]>;

/**
 * Variables of a web request. The session caller deliberately lives under its own name, never
 * `caller`: the request log records every request that has a `caller`, and page views are not
 * API traffic.
 */
export interface WebEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    session: Session | null;
    webCaller: Caller;
    form: FormFields;
    presessionToken: string;
  };
}

export type WebContext = Context<WebEnv>;

export const PRESESSION_COOKIE = 'docsift_presession';

export function field(form: FormFields, name: string): string {
  const v = form[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s : '';
}

export function fields(form: FormFields, name: string): string[] {
  const v = form[name];
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is string => typeof x === 'string');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

const fallbackSecret = randomBytes(32).toString('hex');
function csrfKey(deps: AppDeps): Buffer {
  return createHmac('sha256', deps.config.SIGNING_SECRET ?? fallbackSecret)
    .update('docsift web csrf v1')
    .digest();
}

/**
 * Forms shown before sign-in (sign-in, invite) have no session to bind a token to: they use a
 * signed double-submit token, HMAC(server key, random cookie). A cross-site page can neither read
 * the cookie nor compute the HMAC for a cookie it planted.
 */
export function presessionToken(c: WebContext, deps: AppDeps): string {
  let raw = getCookie(c, PRESESSION_COOKIE);
  if (!raw || !/^[A-Za-z0-9_-]{43}$/.test(raw)) {
    raw = randomBytes(32).toString('base64url');
    setCookie(c, PRESESSION_COOKIE, raw, {
      path: '/app',
      httpOnly: true,
      sameSite: 'Lax',
      secure: isHttps(c, deps.config.PUBLIC_URL),
      maxAge: 86_400,
    });
  }
  return createHmac('sha256', csrfKey(deps)).update(raw).digest('base64url');
}

export function presessionTokenValid(c: WebContext, deps: AppDeps, token: string): boolean {
  const raw = getCookie(c, PRESESSION_COOKIE);
  if (!raw || !token) return false;
  return safeEqual(createHmac('sha256', csrfKey(deps)).update(raw).digest('base64url'), token);
}

/** Only same-site paths under /app/ (no scheme-relative "//host" tricks) may be a post-sign-in target. */
export function safeNext(next: string | undefined): string {
  if (!next?.startsWith('/app/') || next.startsWith('//') || /[\\\r\n]/.test(next) || next.length > 500) return '/app/';
  return next;
}

/** Renders a page element as a full HTML document. */
export async function page(c: WebContext, el: unknown, status = 200): Promise<Response> {
  const body = '<!doctype html>' + (await Promise.resolve(String(await (el as { toString(): string | Promise<string> }).toString())));
  return c.html(body, status as 200);
}
