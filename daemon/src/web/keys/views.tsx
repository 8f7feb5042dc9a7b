// The API key pages: the list with the create form, the one-time secret and the confirmations
// (the form parts are in form.tsx, the routes in pages.tsx).
import type { FC } from 'hono/jsx';
import type { Session } from '../../auth/sessions.js';
import type { CollectionRow } from '../../collections/queries.js';
import type { keyJson } from '../../auth/key-management.js';
import { ErrorSummary } from '../forms.js';
import { Badge, ColumnHeads, Csrf, Layout, Notice, PageHead } from '../layout.js';
import { dateTime, relative } from '../format.js';
import { CreateKeyForm, keyFormErrors, type KeyFormState } from './form.js';

export type KeyView = ReturnType<typeof keyJson>;

export function keyStatus(k: KeyView, now: Date): { label: string; tone: 'ok' | 'danger' | 'neutral' | 'warn' } {
  if (!k.is_active) return { label: 'revoked', tone: 'neutral' };
  if (k.expires_at && new Date(k.expires_at).getTime() <= now.getTime()) return { label: 'expired', tone: 'danger' };
  if (k.expires_at && new Date(k.expires_at).getTime() - now.getTime() < 7 * 86_400_000) return { label: 'expires soon', tone: 'warn' };
  return { label: 'active', tone: 'ok' };
}

export const Grants: FC<{ k: KeyView }> = ({ k }) =>
  k.is_full_access ? (
    <span class="muted">all collections</span>
  ) : k.grants.length ? (
    <span class="chips">
      {k.grants.map((g) => (
        <span class="chip">
          {g.collection} <b>{g.permission}</b>
        </span>
      ))}
    </span>
  ) : (
    <span class="field-error">no grants: this key can reach nothing</span>
  );

const KeyRow: FC<{ k: KeyView; now: Date }> = ({ k, now }) => {
  const st = keyStatus(k, now);
  return (
    <tr data-key-prefix={k.prefix}>
      <td data-label="Name">
        <strong class="wrap">{k.name}</strong>
        <div>
          <code class="muted">{k.prefix}…</code>
        </div>
      </td>
      <td data-label="Access">
        <div class="access">
          {k.is_full_access ? <Badge tone="accent">full access</Badge> : <Badge tone="neutral">scoped</Badge>}
          <Grants k={k} />
        </div>
      </td>
      <td data-label="Status">
        <Badge tone={st.tone}>{st.label}</Badge>
      </td>
      <td data-label="Expires">
        {!k.is_active ? (
          <span class="muted">revoked</span>
        ) : k.expires_at ? (
          <span title={dateTime(k.expires_at)}>{relative(k.expires_at, now)}</span>
        ) : (
          <span class="muted">never</span>
        )}
      </td>
      <td data-label="Last used">
        {k.last_used_at ? <span title={dateTime(k.last_used_at)}>{relative(k.last_used_at, now)}</span> : <span class="muted">never</span>}
      </td>
      <td data-label="Tier">{k.rate_tier}</td>
      <td class="actions">
        {k.is_active ? (
          <div class="action-group">
            <a class="btn small" href={`/app/keys/${k.uuid}`}>
              Manage<span class="visually-hidden"> {k.name}</span>
            </a>
            <a class="btn small" href={`/app/keys/${k.uuid}/rotate`}>
              Rotate<span class="visually-hidden"> {k.name}</span>
            </a>
            <a class="btn small danger" href={`/app/keys/${k.uuid}/revoke`}>
              Revoke<span class="visually-hidden"> {k.name}</span>
            </a>
          </div>
        ) : null}
      </td>
    </tr>
  );
};

const DONE: Record<string, string> = {
  revoked: 'Key revoked. It stops working immediately.',
  updated: 'Key updated.',
  grants: 'Grants saved.',
};

export const KeysPage: FC<{
  session: Session;
  keys: KeyView[];
  collections: CollectionRow[];
  now: Date;
  form: KeyFormState;
  done?: string;
}> = (p) => (
  <Layout title="API keys" session={p.session} active="keys">
    <ErrorSummary errors={keyFormErrors(p.form)} labels={{ 'key-name': 'Name', 'key-grants': 'Collections' }} />
    <PageHead
      title="API keys"
      lead="Keys authenticate programs against the API and MCP endpoint. Secrets are shown once, at creation or rotation."
    >
      <a class="btn primary" href="#create-title">
        Create a key
      </a>
    </PageHead>
    {p.done && DONE[p.done] ? <Notice tone="info">{DONE[p.done]}</Notice> : null}
    <div class="table-wrap">
      <table class="stack keys-table">
        <caption class="visually-hidden">Your API keys</caption>
        <ColumnHeads cols={['Name', 'Access', 'Status', 'Expires', 'Last used', 'Tier']} actions />
        <tbody>
          {p.keys.length === 0 ? (
            <tr>
              <td colspan={7} class="empty">
                No keys yet.
              </td>
            </tr>
          ) : null}
          {p.keys.map((k) => (
            <KeyRow k={k} now={p.now} />
          ))}
        </tbody>
      </table>
    </div>
    <div class="section">
      <CreateKeyForm csrf={p.session.csrfToken} collections={p.collections} userId={p.session.user.id} form={p.form} />
    </div>
  </Layout>
);

/** The only time a secret is ever displayed. */
export const SecretPage: FC<{ session: Session; k: KeyView & { key: string }; rotated: boolean }> = ({ session, k, rotated }) => (
  <Layout title={rotated ? 'Key rotated' : 'Key created'} session={session} active="keys">
    <PageHead title={rotated ? `Rotated “${k.name}”` : `Created “${k.name}”`} />
    <div class="notice warn" role="alert">
      <strong>Copy this secret now.</strong> It is shown only once and cannot be recovered: docsift keeps only a hash of it.
      {rotated ? ' The previous secret has stopped working.' : ''}
    </div>
    <div class="card">
      <label for="new-secret">Secret for {k.name}</label>
      <div class="secret-box">
        {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the focusable secret needs a spoken name for screen readers */}
        <code id="new-secret" tabindex={0} aria-label="New API key secret">
          {k.key}
        </code>
        <button type="button" class="btn primary" data-copy="#new-secret" hidden>
          <span data-label>Copy secret</span>
        </button>
      </div>
      <p class="visually-hidden" id="copy-status" aria-live="polite"></p>
      <dl class="facts">
        <dt>Prefix</dt>
        <dd>
          <code>{k.prefix}</code>
        </dd>
        <dt>Type</dt>
        <dd>{k.is_full_access ? 'Full access' : 'Scoped'}</dd>
        <dt>Grants</dt>
        <dd>
          <Grants k={k} />
        </dd>
        <dt>Expires</dt>
        <dd>{k.expires_at ? dateTime(k.expires_at) : 'Never'}</dd>
      </dl>
      <p class="section">
        Use it as <code>Authorization: Bearer &lt;secret&gt;</code>.
      </p>
      <p class="section">
        <a class="btn" href="/app/keys">
          I have stored it: back to the keys
        </a>
      </p>
    </div>
  </Layout>
);

export const ConfirmPage: FC<{ session: Session; k: KeyView; action: 'rotate' | 'revoke' }> = ({ session, k, action }) => (
  <Layout title={action === 'rotate' ? 'Rotate key' : 'Revoke key'} session={session} active="keys">
    <PageHead title={action === 'rotate' ? `Rotate “${k.name}”?` : `Revoke “${k.name}”?`} />
    <div class="card">
      <p>
        {action === 'rotate'
          ? 'A new secret is issued with the same name, grants, tier and expiry choice. The current secret stops working at once, so every program using it must be updated.'
          : 'The key stops working at once and cannot be re-enabled. Programs using it will get 401 INVALID_API_KEY.'}
      </p>
      <p class="muted">
        Key <code>{k.prefix}…</code>, created {dateTime(k.created_at)}.
      </p>
      <form method="post" action={`/app/keys/${k.uuid}/${action}`} class="form-row section">
        <Csrf token={session.csrfToken} />
        <button type="submit" class={action === 'rotate' ? 'btn primary' : 'btn danger solid'}>
          {action === 'rotate' ? 'Rotate key' : 'Revoke key'}
        </button>
        <a class="btn" href="/app/keys">
          Cancel
        </a>
      </form>
    </div>
  </Layout>
);
