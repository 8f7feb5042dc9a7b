import type { FC } from 'hono/jsx';
import type { Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { acceptInvite, findInvite } from '../auth/invites.js';
import { burnPasswordCheck, passwordProblem, PASSWORD_MAX, PASSWORD_MIN, verifyPassword } from '../auth/passwords.js';
import { endSession, startSession } from '../auth/sessions.js';
import { clearSignInFailures, recordSignInFailure, signInThrottled } from '../auth/sign-in-throttle.js';
import { clientIp } from '../net/client-ip.js';
import type { AppDeps } from '../types.js';
import { field, page, PRESESSION_COOKIE, presessionToken, safeNext, type WebContext, type WebEnv } from './context.js';
import { Bare, FieldError, Notice } from './layout.js';

const SignInForm: FC<{ token: string; next: string; email?: string; error?: string; info?: string }> = (p) => (
  <Bare title="Sign in">
    <h1>Sign in</h1>
    <p class="muted">Manage API keys, watch usage and check your collections.</p>
    <div class="section">
      {p.info ? <Notice tone="info">{p.info}</Notice> : null}
      {p.error ? <Notice tone="error">{p.error}</Notice> : null}
      <form method="post" action="/app/sign-in" novalidate>
        <input type="hidden" name="_csrf" value={p.token} />
        <input type="hidden" name="next" value={p.next} />
        <div class="field">
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={p.email ?? ''} autofocus={!p.email} />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required autofocus={!!p.email} />
        </div>
        <button type="submit" class="btn primary">
          Sign in
        </button>
      </form>
      <p class="muted section">
        No password yet? Ask an administrator for an invite link (<code>docsift-daemon admin invite</code>).
      </p>
    </div>
  </Bare>
);

const InviteForm: FC<{ token: string; csrf: string; email: string; error?: string }> = (p) => (
  <Bare title="Set your password">
    <h1>Set your password</h1>
    <p class="muted">
      For <strong>{p.email}</strong>. This link works once.
    </p>
    <div class="section">
      <form method="post" action={`/app/invite/${p.token}`} novalidate>
        <input type="hidden" name="_csrf" value={p.csrf} />
        <div class="field">
          <label for="password">New password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minlength={PASSWORD_MIN}
            maxlength={PASSWORD_MAX}
            aria-describedby="password-hint password-error"
            aria-invalid={p.error ? 'true' : undefined}
            autofocus
          />
          <span class="hint" id="password-hint">
            At least {PASSWORD_MIN} characters. A passphrase of several words works well.
          </span>
          <FieldError id="password-error" message={p.error} />
        </div>
        <div class="field">
          <label for="confirm">Repeat the password</label>
          <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        </div>
        <button type="submit" class="btn primary">
          Set password and sign in
        </button>
      </form>
    </div>
  </Bare>
);

const DeadInvite: FC = () => (
  <Bare title="Invite link not valid">
    <h1>This link is not valid</h1>
    <p class="muted">It was already used, has expired, or was mistyped. Ask an administrator for a new one.</p>
    <p class="section">
      <a href="/app/sign-in">Go to sign-in</a>
    </p>
  </Bare>
);

const normalizeEmail = (s: string) => s.trim().toLowerCase().slice(0, 320);

export function registerAuthPages(web: Hono<WebEnv>, deps: AppDeps): void {
  web.get('/sign-in', async (c) => {
    if (c.get('session')) return c.redirect(safeNext(c.req.query('next')), 303);
    const info =
      c.req.query('signed_out') !== undefined
        ? 'You are signed out.'
        : c.req.query('expired') !== undefined
          ? 'Your session ended. Sign in again.'
          : undefined;
    return page(c, <SignInForm token={presessionToken(c, deps)} next={safeNext(c.req.query('next'))} info={info} />);
  });

  web.post('/sign-in', async (c) => {
    const form = c.get('form');
    const email = normalizeEmail(field(form, 'email'));
    const password = field(form, 'password').slice(0, PASSWORD_MAX);
    const next = safeNext(field(form, 'next'));
    const ip = clientIp(c, deps.config.TRUST_PROXY);
    const now = deps.clock.now();
    const again = (status: number, error: string) =>
      page(c, <SignInForm token={presessionToken(c, deps)} next={next} email={email} error={error} />, status);

    const throttle = await signInThrottled(deps.sql, email, ip, now);
    if (throttle.limited) {
      c.header('Retry-After', String(throttle.retryAfterSec));
      const minutes = Math.ceil(throttle.retryAfterSec / 60);
      return again(429, `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    }
    const rows = email
      ? await deps.sql<{ id: string; password_hash: string | null; is_active: boolean }[]>`
          select id, password_hash, is_active from users where lower(email) = ${email}`
      : [];
    const user = rows[0];
    // Same work and the same answer whether the account is unknown, has no password, is disabled
    // or the password is wrong: the page never confirms that an email is registered.
    const ok = user?.password_hash ? await verifyPassword(password, user.password_hash) : (await burnPasswordCheck(password), false);
    if (!user || !ok || !user.is_active) {
      await recordSignInFailure(deps.sql, email, ip, now);
      return again(401, 'Email or password is incorrect.');
    }
    await clearSignInFailures(deps.sql, email, ip);
    await startSession(c, deps, user.id, { ip });
    deleteCookie(c, PRESESSION_COOKIE, { path: '/app' });
    return c.redirect(next, 303);
  });

  web.post('/sign-out', async (c) => {
    await endSession(c, deps);
    return c.redirect('/app/sign-in?signed_out=1', 303);
  });

  web.get('/invite/:token', async (c) => {
    const invite = await findInvite(deps.sql, c.req.param('token'), deps.clock.now());
    if (!invite) return page(c, <DeadInvite />, 404);
    return page(c, <InviteForm token={c.req.param('token')} csrf={presessionToken(c, deps)} email={invite.email} />);
  });

  web.post('/invite/:token', async (c: WebContext) => {
    const token = c.req.param('token') ?? '';
    const form = c.get('form');
    const password = field(form, 'password');
    const now = deps.clock.now();
    const invite = await findInvite(deps.sql, token, now);
    if (!invite) return page(c, <DeadInvite />, 404);
    const problem = password !== field(form, 'confirm') ? 'The two passwords differ.' : passwordProblem(password);
    if (problem) return page(c, <InviteForm token={token} csrf={presessionToken(c, deps)} email={invite.email} error={problem} />, 400);
    const accepted = await acceptInvite(deps.sql, token, password, now);
    if (!accepted) return page(c, <DeadInvite />, 404);
    await startSession(c, deps, accepted.userId, { ip: clientIp(c, deps.config.TRUST_PROXY) });
    deleteCookie(c, PRESESSION_COOKIE, { path: '/app' });
    return c.redirect('/app/', 303);
  });
}
