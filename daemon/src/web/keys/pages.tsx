import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { EXPIRY_CHOICES, type ExpiryChoice } from '../../auth/keys.js';
import type { Session } from '../../auth/sessions.js';
import { queryVisibleCollections, type CollectionRow } from '../../collections/queries.js';
import { AppError } from '../../errors.js';
import { createKey, deleteGrant, listKeys, revokeKey, rotateKey, updateKey, upsertGrant } from '../../auth/key-management.js';
import type { AppDeps, Caller } from '../../types.js';
import { field, page, type FormFields, type WebContext, type WebEnv } from '../context.js';
import { dateTime, EXPIRY_LABELS } from '../format.js';
import { ErrorSummary, TextField } from '../forms.js';
import { Csrf, Layout, PageHead } from '../layout.js';
import { emptyKeyForm, ExpirySelect, GrantPicker, type GrantChoice, type KeyFormState } from './form.js';
import { ConfirmPage, Grants, keyStatus, KeysPage, SecretPage, type KeyView } from './views.js';

const ManagePage: FC<{ session: Session; k: KeyView; collections: CollectionRow[]; now: Date; error?: string; nameError?: string }> = ({
  session,
  k,
  collections,
  now,
  error,
  nameError,
}) => {
  const grants = Object.fromEntries(k.grants.map((g) => [g.collection, g.permission])) as Record<string, GrantChoice>;
  const st = keyStatus(k, now);
  return (
    <Layout title={`Key ${k.name}`} session={session} active="keys">
      <ErrorSummary
        errors={{ ...(nameError ? { 'manage-name': nameError } : {}), ...(error ? { _form: error } : {}) }}
        labels={{ 'manage-name': 'Name' }}
      />
      <PageHead
        title={k.name}
        lead={
          <>
            <code>{k.prefix}…</code> · {k.is_full_access ? 'full access' : 'scoped'} · {st.label} · tier {k.rate_tier}
          </>
        }
      >
        <div class="form-row">
          <a class="btn" href={`/app/keys/${k.uuid}/rotate`}>
            Rotate
          </a>
          <a class="btn danger" href={`/app/keys/${k.uuid}/revoke`}>
            Revoke
          </a>
        </div>
      </PageHead>
      <div class="grid cols-2">
        <form method="post" action={`/app/keys/${k.uuid}`} class="card" aria-labelledby="settings-title" novalidate>
          <h2 id="settings-title">Name and expiry</h2>
          <Csrf token={session.csrfToken} />
          <dl class="facts">
            <dt>Created</dt>
            <dd>{dateTime(k.created_at)}</dd>
            <dt>Expires</dt>
            <dd>
              {k.expires_at ? dateTime(k.expires_at) : 'never'} ({EXPIRY_LABELS[k.expires_in] ?? k.expires_in} term)
            </dd>
            <dt>Last used</dt>
            <dd>{k.last_used_at ? dateTime(k.last_used_at) : 'never'}</dd>
          </dl>
          <div class="section">
            <TextField
              id="manage-name"
              name="name"
              label="Name"
              maxlength={100}
              required
              value={k.name}
              errors={nameError ? { 'manage-name': nameError } : {}}
            />
            <ExpirySelect id="manage-expiry" value={k.expires_in} label="Renew expiry (counted from today)" />
            <label class="choice">
              <input type="checkbox" name="renew" value="1" checked={st.label === 'expired' || st.label === 'expires soon'} />
              <span>
                Apply the expiry above now<span class="hint">Leave unticked to only rename; the current expiry date is kept.</span>
              </span>
            </label>
            <button type="submit" class="btn primary">
              Save
            </button>
          </div>
        </form>
        <div class="card">
          <h2 id="grants-title">Collection grants</h2>
          {k.is_full_access ? (
            <p class="muted section">A full-access key reaches every collection you own or subscribe to; grants do not apply.</p>
          ) : (
            <form method="post" action={`/app/keys/${k.uuid}/grants`} aria-labelledby="grants-title" class="section">
              <Csrf token={session.csrfToken} />
              <p class="muted">
                Currently: <Grants k={k} />
              </p>
              <GrantPicker collections={collections} userId={session.user.id} grants={grants} />
              <button type="submit" class="btn primary section">
                Save grants
              </button>
            </form>
          )}
        </div>
      </div>
    </Layout>
  );
};

function grantChoices(form: FormFields): Record<string, GrantChoice> {
  const out: Record<string, GrantChoice> = {};
  for (const [k, v] of Object.entries(form)) {
    if (!k.startsWith('grant:') || typeof v !== 'string') continue;
    if (v === 'read' || v === 'write' || v === 'none') out[k.slice(6)] = v;
  }
  return out;
}

function parseKeyForm(form: FormFields): KeyFormState {
  const state: KeyFormState = {
    name: field(form, 'name').trim(),
    access: field(form, 'access') === 'full' ? 'full' : 'scoped',
    expires_in: field(form, 'expires_in'),
    grants: grantChoices(form),
    errors: {},
  };
  if (!state.name) state.errors.name = 'Give the key a name.';
  else if (state.name.length > 100) state.errors.name = 'At most 100 characters.';
  if (!(EXPIRY_CHOICES as readonly string[]).includes(state.expires_in)) state.errors._form = 'Choose an expiry.';
  if (state.access === 'scoped' && !Object.values(state.grants).some((g) => g !== 'none')) {
    state.errors.grants = 'A scoped key needs at least one collection with read or write access.';
  }
  return state;
}

/** The key the form describes: read grants come with its creation (one transaction), write grants are raised right after. */
async function createFromForm(deps: AppDeps, caller: Caller, form: KeyFormState) {
  const grants = Object.entries(form.grants).filter(([, g]) => g !== 'none');
  const created = await createKey(deps, caller, {
    name: form.name,
    is_full_access: form.access === 'full',
    collections: form.access === 'scoped' ? grants.map(([slug]) => slug) : [],
    expires_in: form.expires_in as ExpiryChoice,
  });
  if (form.access === 'scoped') {
    for (const [slug, g] of grants)
      if (g === 'write') await upsertGrant(deps, caller, created.uuid, { collection: slug, permission: 'write' });
  }
  return created;
}

export function registerKeyPages(web: Hono<WebEnv>, deps: AppDeps): void {
  const collectionsOf = (caller: Caller) => queryVisibleCollections(deps.sql, caller);
  const findKey = async (caller: Caller, id: string): Promise<KeyView> => {
    const k = (await listKeys(deps, caller)).find((x) => x.uuid === id);
    if (!k) throw new AppError('API_KEY_NOT_FOUND', 'This key does not exist or is not yours.');
    return k;
  };
  const listPage = async (c: WebContext, form: KeyFormState, status = 200) => {
    const caller = c.get('webCaller');
    const [keys, collections] = await Promise.all([listKeys(deps, caller), collectionsOf(caller)]);
    return page(
      c,
      <KeysPage
        session={c.get('session')!}
        keys={keys}
        collections={collections}
        now={deps.clock.now()}
        form={form}
        done={c.req.query('done')}
      />,
      status,
    );
  };

  web.get('/keys', (c) => listPage(c, emptyKeyForm()));

  web.post('/keys', async (c) => {
    const caller = c.get('webCaller');
    const form = parseKeyForm(c.get('form'));
    if (Object.keys(form.errors).length) return listPage(c, form, 400);
    try {
      const created = await createFromForm(deps, caller, form);
      const k = (await findKey(caller, created.uuid)) as KeyView;
      return page(c, <SecretPage session={c.get('session')!} k={{ ...k, key: created.key }} rotated={false} />, 201);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      form.errors._form = err.message;
      return listPage(c, form, 400);
    }
  });

  web.get('/keys/:id', async (c) => {
    const caller = c.get('webCaller');
    const [k, collections] = await Promise.all([findKey(caller, c.req.param('id')), collectionsOf(caller)]);
    return page(c, <ManagePage session={c.get('session')!} k={k} collections={collections} now={deps.clock.now()} />);
  });

  web.post('/keys/:id', async (c) => {
    const caller = c.get('webCaller');
    const form = c.get('form');
    const k = await findKey(caller, c.req.param('id'));
    const name = field(form, 'name').trim();
    const expires = field(form, 'expires_in');
    const renew = field(form, 'renew') === '1';
    if (!name || name.length > 100 || (renew && !(EXPIRY_CHOICES as readonly string[]).includes(expires))) {
      const collections = await collectionsOf(caller);
      return page(
        c,
        <ManagePage
          session={c.get('session')!}
          k={k}
          collections={collections}
          now={deps.clock.now()}
          nameError={name ? 'At most 100 characters.' : 'Give the key a name.'}
        />,
        400,
      );
    }
    await updateKey(deps, caller, k.uuid, { name, ...(renew ? { expires_in: expires as ExpiryChoice } : {}) });
    return c.redirect(`/app/keys?done=updated`, 303);
  });

  web.post('/keys/:id/grants', async (c) => {
    const caller = c.get('webCaller');
    const k = await findKey(caller, c.req.param('id'));
    const wanted = grantChoices(c.get('form'));
    const current = new Map(k.grants.map((g) => [g.collection, g.permission]));
    try {
      for (const [slug, g] of Object.entries(wanted)) {
        if (g === 'none' && current.has(slug)) await deleteGrant(deps, caller, k.uuid, slug);
        else if (g !== 'none' && current.get(slug) !== g) await upsertGrant(deps, caller, k.uuid, { collection: slug, permission: g });
      }
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const [fresh, collections] = await Promise.all([findKey(caller, k.uuid), collectionsOf(caller)]);
      return page(
        c,
        <ManagePage session={c.get('session')!} k={fresh} collections={collections} now={deps.clock.now()} error={err.message} />,
        400,
      );
    }
    return c.redirect(`/app/keys?done=grants`, 303);
  });

  for (const action of ['rotate', 'revoke'] as const) {
    web.get(`/keys/:id/${action}`, async (c) => {
      const k = await findKey(c.get('webCaller'), c.req.param('id'));
      if (!k.is_active) return c.redirect('/app/keys', 303);
      return page(c, <ConfirmPage session={c.get('session')!} k={k} action={action} />);
    });
  }

  web.post('/keys/:id/rotate', async (c) => {
    const caller = c.get('webCaller');
    const rotated = await rotateKey(deps, caller, c.req.param('id'));
    return page(c, <SecretPage session={c.get('session')!} k={rotated} rotated={true} />, 201);
  });

  web.post('/keys/:id/revoke', async (c) => {
    await revokeKey(deps, c.get('webCaller'), c.req.param('id'));
    return c.redirect('/app/keys?done=revoked', 303);
  });
}
