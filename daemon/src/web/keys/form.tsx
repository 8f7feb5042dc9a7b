// The key forms' parts: the create form and its state, and the expiry and grant pickers the
// manage page (pages.tsx) reuses.
import type { FC } from 'hono/jsx';
import { EXPIRY_CHOICES } from '../../auth/keys.js';
import type { CollectionRow } from '../../collections/queries.js';
import { type FormErrors, TextField } from '../forms.js';
import { Csrf, FieldError } from '../layout.js';
import { EXPIRY_LABELS } from '../format.js';

export type GrantChoice = 'none' | 'read' | 'write';

export interface KeyFormState {
  name: string;
  access: 'full' | 'scoped';
  expires_in: string;
  grants: Record<string, GrantChoice>;
  errors: Record<string, string>;
}

/** The create form's errors keyed by the id of the input they belong to (for the summary at the top). */
export function keyFormErrors(form: KeyFormState): FormErrors {
  const out: FormErrors = {};
  if (form.errors.name) out['key-name'] = form.errors.name;
  if (form.errors.grants) out['key-grants'] = form.errors.grants;
  if (form.errors._form) out._form = form.errors._form;
  return out;
}

export const emptyKeyForm = (): KeyFormState => ({ name: '', access: 'scoped', expires_in: '90d', grants: {}, errors: {} });

export const ExpirySelect: FC<{ id: string; value: string; label: string }> = ({ id, value, label }) => (
  <div class="field">
    <label for={id}>{label}</label>
    <select id={id} name="expires_in">
      {EXPIRY_CHOICES.map((e) => (
        <option value={e} selected={e === value}>
          {e === 'never' ? 'Never expires' : `${EXPIRY_LABELS[e]} from now`}
        </option>
      ))}
    </select>
  </div>
);

/** One select per visible collection: no access, read, or write (write only where the user owns it). */
export const GrantPicker: FC<{ collections: CollectionRow[]; userId: string; grants: Record<string, GrantChoice> }> = ({
  collections,
  userId,
  grants,
}) =>
  collections.length === 0 ? (
    <p class="muted">No collections yet.</p>
  ) : (
    <div>
      {collections.map((c) => {
        const id = `grant-${c.slug}`;
        const v = grants[c.slug] ?? 'none';
        const owned = c.owner_id === userId;
        return (
          <div class="grant-row">
            <label for={id}>
              {c.name} <span class="muted mono">{c.slug}</span>
              {owned ? null : <span class="hint muted"> (subscribed: read only)</span>}
            </label>
            <select id={id} name={`grant:${c.slug}`}>
              <option value="none" selected={v === 'none'}>
                No access
              </option>
              <option value="read" selected={v === 'read'}>
                Read
              </option>
              {owned ? (
                <option value="write" selected={v === 'write'}>
                  Read and write
                </option>
              ) : null}
            </select>
          </div>
        );
      })}
    </div>
  );

export const CreateKeyForm: FC<{ csrf: string; collections: CollectionRow[]; userId: string; form: KeyFormState }> = ({
  csrf,
  collections,
  userId,
  form,
}) => (
  <form method="post" action="/app/keys" class="card" data-scope-form aria-labelledby="create-title" novalidate>
    <h2 id="create-title">Create a key</h2>
    <Csrf token={csrf} />
    <div class="section">
      <div class="form-row">
        <TextField
          id="key-name"
          name="name"
          label="Name"
          maxlength={100}
          required
          value={form.name}
          placeholder="e.g. support bot"
          errors={form.errors.name ? { 'key-name': form.errors.name } : {}}
        />
        <ExpirySelect id="key-expiry" value={form.expires_in} label="Expires" />
      </div>
      <fieldset class="section">
        <legend>Access</legend>
        <label class="choice">
          <input type="radio" name="access" value="scoped" checked={form.access === 'scoped'} />
          <span>
            Chosen collections<span class="hint">Only the collections below, each with read or write permission.</span>
          </span>
        </label>
        <label class="choice">
          <input type="radio" name="access" value="full" checked={form.access === 'full'} />
          <span>
            Full access<span class="hint">Every collection you own or subscribe to, including future ones, and key management.</span>
          </span>
        </label>
      </fieldset>
      <fieldset data-scope-grants aria-describedby="grants-error" id="key-grants" tabindex={-1}>
        <legend>Collections for a scoped key</legend>
        <GrantPicker collections={collections} userId={userId} grants={form.grants} />
        <FieldError id="grants-error" message={form.errors.grants} />
      </fieldset>
      <button type="submit" class="btn primary">
        Create key
      </button>
    </div>
  </form>
);
