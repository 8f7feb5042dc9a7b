import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../errors.js';
import { limitCaller } from '../limits/caller-limit.js';
import type { AppDeps, AppEnv, Caller } from '../types.js';
import { loadSession, sessionCaller } from '../auth/sessions.js';

/**
 * For the few API routes docs/service-spec.md opens to sessions (§4, Download rules): a request with
 * an Authorization header goes through the normal Bearer guard unchanged; one without it is
 * accepted on a valid session cookie, as a full-access caller of the signed-in user. Neither
 * credential → the guard answers 401 AUTHENTICATION_REQUIRED, as for any other endpoint.
 * Session requests count against the user's rate limit like key requests do (429 when over).
 */
export function sessionOrBearer(deps: AppDeps, bearerGuard: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.header('authorization') !== undefined) return bearerGuard(c, next);
    const session = await loadSession(c, deps);
    if (!session) return bearerGuard(c, next);
    const caller = await sessionCaller(deps.sql, session.user);
    const headers = await limitCaller(deps, caller);
    // Not the context's `caller`: the request log is filed by API key, and a session has none. The
    // user's rate limit still applies (counted here, not by the key guard).
    c.set('sessionCaller', caller);
    await next();
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
  };
}

/** The caller of a route that accepts a key or a session. */
export function keyOrSessionCaller(c: Context<AppEnv>): Caller {
  const caller = (c.get('caller') as Caller | undefined) ?? (c.get('sessionCaller') as Caller | undefined);
  if (!caller)
    throw new AppError(
      'AUTHENTICATION_REQUIRED',
      'Authentication required: send "Authorization: Bearer <API_KEY>" or sign in to the web UI.',
    );
  return caller;
}
