import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { assetUrl } from './static.js';

export type NavId = 'overview' | 'search' | 'catalogue' | 'keys' | 'usage' | 'admin';

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
  search: (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
      <circle cx="11" cy="11" r="6" />
      <path d="M16 16l4 4" stroke-linecap="round" />
    </svg>
  ),
  catalogue: (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
      <path d="M4 5h6v14H4zM14 5h6v14h-6z" stroke-linejoin="round" />
    </svg>
  ),
  admin: (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
      <circle cx="9" cy="8" r="3.5" />
      <path d="M3 20c0-3.3 2.7-6 6-6s6 2.7 6 6M16 4.5a3.5 3.5 0 0 1 0 7M18 14c2 .8 3 2.9 3 6" stroke-linecap="round" />
    </svg>
  ),
};

const NAV: { id: NavId; href: string; label: string; adminOnly?: boolean }[] = [
  { id: 'overview', href: '/app/', label: 'Collections' },
  { id: 'search', href: '/app/search', label: 'Search' },
  { id: 'catalogue', href: '/app/catalogue', label: 'Public catalogue' },
  { id: 'keys', href: '/app/keys', label: 'API keys' },
  { id: 'usage', href: '/app/usage', label: 'Usage' },
  { id: 'admin', href: '/app/admin/users', label: 'Users', adminOnly: true },
];

// The logo as an inline icon: no extra request, and no 404 for /favicon.ico in every console.
const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="2" width="28" height="28" rx="8" fill="#0b6e5b"/><path d="M10 10h8.5a5.5 5.5 0 0 1 0 11H10zM18.5 21l4.5 4" fill="none" stroke="#fff" stroke-width="2.6" stroke-linejoin="round" stroke-linecap="round"/></svg>',
  );

/**
 * A table's column headings; `[label, 'num']` right-aligns a numeric column, `false` or null is
 * left out, and `actions` adds a last column of row buttons, named for screen readers only.
 */
export const ColumnHeads: FC<{ cols: (string | [string, 'num'] | false | null)[]; actions?: boolean }> = ({ cols, actions }) => (
  <thead>
    <tr>
      {cols.map((c) =>
        !c ? null : typeof c === 'string' ? (
          <th scope="col">{c}</th>
        ) : (
          <th scope="col" class="num">
            {c[0]}
          </th>
        ),
      )}
      {actions ? (
        <th scope="col">
          <span class="visually-hidden">Actions</span>
        </th>
      ) : null}
    </tr>
  </thead>
);

export const Head: FC<{ title: string }> = ({ title }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <meta name="referrer" content="same-origin" />
    <title>{title} · docsift</title>
    <link rel="icon" href={FAVICON} />
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
            {NAV.filter((n) => !n.adminOnly || session.user.isAdmin).map((n) => (
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
