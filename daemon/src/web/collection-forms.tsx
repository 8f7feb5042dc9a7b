// Create, edit (rename, description, language, public), publish/unpublish and delete a collection. Input is
// validated by the API's own request schemas and every change goes through the API's use cases,
// which decide who may do what (owner only, 404 for collections the user cannot see).
import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import type { CollectionRow } from '../collections/queries.js';
import { AppError, fieldsFromIssues } from '../errors.js';
import { CreateCollection, UpdateCollection } from '../routes/collections.js';
import { createCollection, deleteCollection, getVisibleCollection, updateCollection } from '../collections/service.js';
import { listLanguages } from '../collections/language.js';
import type { AppDeps } from '../types.js';
import { field, page, type WebContext, type WebEnv } from './context.js';
import { count } from './format.js';
import { ErrorSummary, errorsFromFields, TextArea, TextField, type FormErrors } from './forms.js';
import { Csrf, FieldError, Layout, PageHead } from './layout.js';

const IDS = { name: 'coll-name', description: 'coll-description', is_public: 'coll-public', language: 'coll-language' };
const LABELS = {
  'coll-name': 'Name',
  'coll-description': 'Description',
  'coll-public': 'Public',
  'coll-language': 'Language',
  'confirm-slug': 'Confirmation',
};

interface CollectionFormState {
  name: string;
  description: string;
  is_public: boolean;
  language: string;
}

const CollectionFormPage: FC<{ session: Session; c?: CollectionRow; s: CollectionFormState; errors: FormErrors; languages: string[] }> = ({
  session,
  c,
  s,
  errors,
  languages,
}) => (
  <Layout title={c ? `Edit ${c.name}` : 'New collection'} session={session} active="overview">
    <ErrorSummary errors={errors} labels={LABELS} />
    <PageHead
      title={c ? `Edit “${c.name}”` : 'New collection'}
      lead={c ? `The slug ${c.slug} stays the same when you rename.` : 'A collection groups documents that are searched together.'}
    />
    <form method="post" action={c ? `/app/collections/${c.id}/edit` : '/app/collections'} class="card narrow" novalidate>
      <Csrf token={session.csrfToken} />
      <TextField id="coll-name" name="name" label="Name" value={s.name} errors={errors} maxlength={200} required />
      <TextArea
        id="coll-description"
        name="description"
        label="Description"
        value={s.description}
        errors={errors}
        maxlength={5000}
        hint="Optional. Shown in the public catalogue when the collection is public."
      />
      <div class="field">
        <label for="coll-language">Language</label>
        <select
          id="coll-language"
          name="language"
          aria-invalid={errors['coll-language'] ? 'true' : undefined}
          aria-describedby={errors['coll-language'] ? 'coll-language-hint coll-language-error' : 'coll-language-hint'}
        >
          {languages.map((l) => (
            <option value={l} selected={l === s.language}>
              {l}
            </option>
          ))}
        </select>
        <span class="hint" id="coll-language-hint">
          Stemming and stop words for text search; Chinese, Japanese, Korean and Thai are split into words; “simple” for code and
          identifiers.{c ? ' Changing it reindexes the collection.' : ''}
        </span>
        <FieldError id="coll-language-error" message={errors['coll-language']} />
      </div>
      <label class="choice">
        <input type="checkbox" id="coll-public" name="is_public" value="true" checked={s.is_public} />
        <span>
          Public
          <span class="hint">
            Listed in the public catalogue: anyone signed in to this service can subscribe and search it. Only you can change it.
          </span>
        </span>
      </label>
      <div class="form-row section">
        <button type="submit" class="btn primary">
          {c ? 'Save changes' : 'Create collection'}
        </button>
        <a class="btn" href={c ? `/app/collections/${c.id}` : '/app/'}>
          Cancel
        </a>
      </div>
    </form>
  </Layout>
);

const DeletePage: FC<{ session: Session; c: CollectionRow; errors: FormErrors; typed: string }> = ({ session, c, errors, typed }) => (
  <Layout title={`Delete ${c.name}`} session={session} active="overview">
    <ErrorSummary errors={errors} labels={LABELS} />
    <PageHead title={`Delete “${c.name}”?`} />
    <div class="card narrow">
      <p>
        Its {count(c.document_count)} {c.document_count === 1 ? 'document leaves' : 'documents leave'} search at once, keys lose their
        grants on it{c.is_public ? ', subscribers lose access' : ''}, and the stored files are purged after 7 days. This cannot be undone.
      </p>
      <form method="post" action={`/app/collections/${c.id}/delete`} class="section" novalidate>
        <Csrf token={session.csrfToken} />
        <TextField
          id="confirm-slug"
          name="confirm"
          label={`Type the slug “${c.slug}” to confirm`}
          value={typed}
          errors={errors}
          autocomplete="off"
          required
        />
        <div class="form-row">
          <button type="submit" class="btn danger solid">
            Delete collection
          </button>
          <a class="btn" href={`/app/collections/${c.id}`}>
            Cancel
          </a>
        </div>
      </form>
    </div>
  </Layout>
);

function readForm(c: WebContext): CollectionFormState {
  const form = c.get('form');
  return {
    name: field(form, 'name'),
    description: field(form, 'description'),
    is_public: field(form, 'is_public') === 'true',
    language: field(form, 'language'),
  };
}

/** Zod issues or a refusing use case → errors beside the fields and in the summary. */
function formErrors(err: unknown): FormErrors {
  if (err instanceof AppError && err.status < 500) return errorsFromFields(err.message, err.fields, IDS);
  throw err;
}

export function registerCollectionForms(web: Hono<WebEnv>, deps: AppDeps): void {
  const show = async (c: WebContext, p: { c?: CollectionRow; s: CollectionFormState; errors?: FormErrors }, status = 200) => {
    const languages = await listLanguages(deps.sql);
    return page(
      c,
      <CollectionFormPage session={c.get('session')!} c={p.c} s={p.s} errors={p.errors ?? {}} languages={languages} />,
      status,
    );
  };
  const defaultLanguage = deps.config.TEXT_SEARCH_CONFIG;

  web.get('/collections/new', (c) => show(c, { s: { name: '', description: '', is_public: false, language: defaultLanguage } }));

  web.post('/collections', async (c) => {
    const s = readForm(c);
    const parsed = CreateCollection.safeParse(s);
    if (!parsed.success) return show(c, { s, errors: errorsFromFields('', fieldsFromIssues(parsed.error.issues as never), IDS) }, 400);
    try {
      const created = await createCollection(deps, c.get('webCaller'), parsed.data);
      return c.redirect(`/app/collections/${created.uuid}?done=created`, 303);
    } catch (err) {
      return show(c, { s, errors: formErrors(err) }, (err as AppError).status);
    }
  });

  web.get('/collections/:id/edit', async (c) => {
    const col = await getVisibleCollection(deps.sql, c.get('webCaller'), c.req.param('id'));
    const s = { name: col.name, description: col.description, is_public: col.is_public, language: col.language ?? defaultLanguage };
    return show(c, { c: col, s });
  });

  web.post('/collections/:id/edit', async (c) => {
    const caller = c.get('webCaller');
    const col = await getVisibleCollection(deps.sql, caller, c.req.param('id'));
    const s = readForm(c);
    const parsed = UpdateCollection.safeParse(s);
    if (!parsed.success)
      return show(c, { c: col, s, errors: errorsFromFields('', fieldsFromIssues(parsed.error.issues as never), IDS) }, 400);
    try {
      await updateCollection(deps, caller, col.id, parsed.data);
    } catch (err) {
      return show(c, { c: col, s, errors: formErrors(err) }, (err as AppError).status);
    }
    return c.redirect(`/app/collections/${col.id}?done=updated`, 303);
  });

  // The one-click public toggle on the collection page.
  web.post('/collections/:id/visibility', async (c) => {
    const isPublic = field(c.get('form'), 'is_public') === 'true';
    const r = await updateCollection(deps, c.get('webCaller'), c.req.param('id'), { is_public: isPublic });
    return c.redirect(`/app/collections/${r.uuid}?done=${isPublic ? 'public' : 'private'}`, 303);
  });

  web.get('/collections/:id/delete', async (c) => {
    const col = await getVisibleCollection(deps.sql, c.get('webCaller'), c.req.param('id'));
    return page(c, <DeletePage session={c.get('session')!} c={col} errors={{}} typed="" />);
  });

  web.post('/collections/:id/delete', async (c) => {
    const caller = c.get('webCaller');
    const col = await getVisibleCollection(deps.sql, caller, c.req.param('id'));
    const typed = field(c.get('form'), 'confirm').trim();
    if (typed !== col.slug) {
      const errors = { 'confirm-slug': typed ? `That is not “${col.slug}”.` : `Type “${col.slug}” to confirm.` };
      return page(c, <DeletePage session={c.get('session')!} c={col} errors={errors} typed={typed} />, 400);
    }
    await deleteCollection(deps, caller, col.id);
    return c.redirect('/app/?done=collection-deleted', 303);
  });
}
