// A document's title, tags and metadata, edited in place through the API's update use case (the
// PATCH of /api/v1/documents/{uuid}: no reprocessing, search sees the change at once).
import type { FC } from 'hono/jsx';
import type { DocumentRow } from '../documents/queries.js';
import { updateDocument } from '../documents/update.js';
import { AppError } from '../errors.js';
import type { AppDeps, Caller } from '../types.js';
import { field, type FormFields } from './context.js';
import { errorsFromFields, TextField, type FormErrors } from './forms.js';
import { Csrf } from './layout.js';
import { MetadataField, oneMetadataField } from './metadata-field.js';
import { formatMetadataText, parseMetadataText } from './metadata-text.js';

const IDS = { title: 'edit-title', tags: 'edit-tags', metadata: 'edit-metadata' };
export const EDIT_LABELS: Record<string, string> = { 'edit-title': 'Title', 'edit-tags': 'Tags', 'edit-metadata': 'Metadata' };

export interface EditState {
  title: string;
  tags: string;
  metadata: string;
}

export const editState = (d: DocumentRow): EditState => ({
  title: d.title,
  tags: d.tags.join(', '),
  metadata: formatMetadataText(d.metadata),
});

export const EditDetails: FC<{ d: DocumentRow; csrf: string; s: EditState; errors: FormErrors }> = ({ d, csrf, s, errors }) => (
  <form method="post" action={`/app/documents/${d.id}/edit`} class="card narrow" aria-labelledby="edit-title-heading" id="edit" novalidate>
    <h2 id="edit-title-heading">Edit details</h2>
    <p class="muted">Saved in place: the document is not processed again, and search sees the change at once.</p>
    <Csrf token={csrf} />
    <TextField id="edit-title" name="title" label="Title" value={s.title} errors={errors} maxlength={500} required />
    <TextField id="edit-tags" name="tags" label="Tags" value={s.tags} errors={errors} hint="Comma-separated; replaces the current tags." />
    <MetadataField id="edit-metadata" value={s.metadata} errors={errors} />
    <button type="submit" class="btn primary">
      Save details
    </button>
  </form>
);

/** Saves the form; the field errors (and the form as sent) when the update refuses it. */
export async function saveDetails(
  deps: AppDeps,
  caller: Caller,
  id: string,
  form: FormFields,
): Promise<{ ok: true } | { ok: false; s: EditState; errors: FormErrors; status: number }> {
  const s: EditState = { title: field(form, 'title'), tags: field(form, 'tags'), metadata: field(form, 'metadata') };
  try {
    await updateDocument(deps, caller, id, { title: s.title, tags: s.tags, metadata: parseMetadataText(s.metadata) });
    return { ok: true };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500 || err.status === 404 || err.status === 403) throw err;
    return { ok: false, s, errors: errorsFromFields(err.message, oneMetadataField(err.fields), IDS), status: err.status };
  }
}
