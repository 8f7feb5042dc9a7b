import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { assetUrl } from './static.js';

export type NavId = 'overview' | 'keys' | 'usage';

const Logo: FC = () => (
  <svg width="26" height="26" viewBox="0 0 32 32" aria-hidden="true">
    <rect class="logo-bg" x="2" y="2" width="28" height="28" rx="8" />
    <path class="logo-fg" d="M10 10h8.5a5.5 5.5 0 0 1 0 11H10z" fill="none" stroke-width="2.6" stroke-linejoin="round" />
    <path class="logo-fg" d="M18.5 21l4.5 4" stroke-width="2.6" stroke-linecap="round" />
  </svg>
);

const icons: Record<NavId, Child> = {
  overview: (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
      <path d="M4 5h16M4 12h16M4 19h10" stroke-linecap="round" />
    </svg>
  ),
  keys: (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
      <circle cx="8" cy="15" r="4" />
      <path d="M11 12l8-8M16 7l3 3" stroke-linecap="round" />
    </svg>
  ),
  usage: (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
      <path d="M5 20V11M12 20V4M19 20v-6" stroke-linecap="round" />
    </svg>
  ),
};

const NAV: { id: NavId; href: string; label: string }[] = [
  { id: 'overview', href: '/app/', label: 'Collections' },
  { id: 'keys', href: '/app/keys', label: 'API keys' },
  { id: 'usage', href: '/app/usage', label: 'Usage' },
];

export const Head: FC<{ title: string }> = ({ title }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <meta name="referrer" content="same-origin" />
    <title>{title} · docsift</title>
    <link rel="stylesheet" href={assetUrl('app.css')} />
    <script src={assetUrl('app.js')} defer></script>
  </head>
);

/** Hidden synchronizer token: every state-changing form carries one. */
export const Csrf: FC<{ token: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token} />;

export const Layout: FC<PropsWithChildren<{ title: string; session: Session; active?: NavId }>> = ({
  title,
  session,
  active,
  children,
}) => (
  <html lang="en">
    <Head title={title} />
    <body>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <div class="shell">
        <header class="sidebar">
          <a class="brand" href="/app/">
            <Logo /> docsift
          </a>
          <nav class="nav" aria-label="Main">
            {NAV.map((n) => (
              <a href={n.href} aria-current={n.id === active ? 'page' : undefined}>
                {icons[n.id]}
                {n.label}
              </a>
            ))}
          </nav>
          <div class="account">
            <div class="who">
              <span class="muted">Signed in as</span>
              <br />
              <strong>{session.user.email}</strong>
            </div>
            <form method="post" action="/app/sign-out" class="inline-form">
              <Csrf token={session.csrfToken} />
              <button type="submit" class="btn small">
                Sign out
              </button>
            </form>
          </div>
        </header>
        <main id="main" tabindex={-1}>
          {children}
        </main>
      </div>
    </body>
  </html>
);

/** Pages shown without a session (sign-in, invite) and error pages for signed-out visitors. */
export const Bare: FC<PropsWithChildren<{ title: string }>> = ({ title, children }) => (
  <html lang="en">
    <Head title={title} />
    <body>
      <main class="auth-page" id="main">
        <div class="auth-card card">
          <a class="brand" href="/app/">
            <Logo /> docsift
          </a>
          {children}
        </div>
      </main>
    </body>
  </html>
);

export const PageHead: FC<PropsWithChildren<{ title: string; lead?: Child }>> = ({ title, lead, children }) => (
  <div class="page-head">
    <div>
      <h1>{title}</h1>
      {lead ? <p>{lead}</p> : null}
    </div>
    {children}
  </div>
);

export type Tone = 'ok' | 'warn' | 'danger' | 'neutral' | 'accent';
export const Badge: FC<PropsWithChildren<{ tone: Tone }>> = ({ tone, children }) => <span class={`badge ${tone}`}>{children}</span>;

export const Notice: FC<PropsWithChildren<{ tone: 'info' | 'error' | 'warn'; title?: string }>> = ({ tone, title, children }) => (
  <div class={`notice ${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
    {title ? <strong>{title} </strong> : null}
    {children}
  </div>
);

export const FieldError: FC<{ id: string; message?: string }> = ({ id, message }) =>
  message ? (
    <span class="field-error" id={id}>
      {message}
    </span>
  ) : null;

const STATUS_TONE: Record<string, Tone> = { indexed: 'ok', pending: 'warn', failed: 'danger' };
export const StatusBadge: FC<{ status: string }> = ({ status }) => <Badge tone={STATUS_TONE[status] ?? 'neutral'}>{status}</Badge>;
