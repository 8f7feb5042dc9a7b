// Form building blocks shared by every page: labelled fields that show their own error beside
// them, and the summary of all errors at the top of the page (linked to each field).
import type { Child, FC } from 'hono/jsx';
import type { FieldErrors } from '../errors.js';
import { FieldError } from './layout.js';

/** Errors of one form, keyed by the id of the input they belong to; `_form` for the form as a whole. */
export type FormErrors = Record<string, string>;

export const hasErrors = (e: FormErrors) => Object.keys(e).length > 0;

/**
 * The error envelope's `fields` (API field names) as errors keyed by input id: `ids` maps API
 * field names to the ids of this form's inputs; unknown fields join the form-level message.
 */
export function errorsFromFields(message: string, fields: FieldErrors | undefined, ids: Record<string, string>): FormErrors {
  const out: FormErrors = {};
  for (const [name, messages] of Object.entries(fields ?? {})) {
    const id = ids[name];
    if (id) out[id] = messages.join(' ');
  }
  if (!hasErrors(out)) out._form = message || 'One or more fields failed validation.';
  return out;
}

/** First in <main>: what went wrong, each item a link to its field. The page script focuses it. */
export const ErrorSummary: FC<{ errors: FormErrors; labels?: Record<string, string> }> = ({ errors, labels = {} }) => {
  const entries = Object.entries(errors);
  if (!entries.length) return null;
  return (
    <div class="notice error error-summary" role="alert" tabindex={-1} id="error-summary" data-error-summary>
      <strong>{entries.length === 1 ? 'There is a problem' : `There are ${entries.length} problems`}</strong>
      <ul>
        {entries.map(([id, message]) =>
          id.startsWith('_') ? (
            <li>{message}</li>
          ) : (
            <li>
              <a href={`#${id}`}>
                {labels[id] ? `${labels[id]}: ` : ''}
                {message}
              </a>
            </li>
          ),
        )}
      </ul>
    </div>
  );
};

interface InputProps {
  id: string;
  name: string;
  label: string;
  value?: string;
  errors: FormErrors;
  hint?: Child;
  type?: 'text' | 'url' | 'search';
  maxlength?: number;
  required?: boolean;
  placeholder?: string;
  autocomplete?: string;
  list?: string;
}

/** The ids of a field's hint and error, for its aria-describedby. */
const describedByOf = (id: string, hint: Child | undefined, err: string | undefined) =>
  [hint ? `${id}-hint` : '', err ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

/** A field's hint and its error, each with the id that describedByOf names. */
const FieldNotes: FC<{ id: string; hint?: Child; error?: string }> = ({ id, hint, error }) => (
  <>
    {hint ? (
      <span class="hint" id={`${id}-hint`}>
        {hint}
      </span>
    ) : null}
    <FieldError id={`${id}-error`} message={error} />
  </>
);

export const TextField: FC<InputProps> = (p) => {
  const err = p.errors[p.id];
  const describedBy = describedByOf(p.id, p.hint, err);
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <input
        id={p.id}
        name={p.name}
        type={p.type ?? 'text'}
        value={p.value ?? ''}
        maxlength={p.maxlength}
        required={p.required}
        placeholder={p.placeholder}
        autocomplete={p.autocomplete}
        list={p.list}
        aria-invalid={err ? 'true' : undefined}
        aria-describedby={describedBy}
      />
      <FieldNotes id={p.id} hint={p.hint} error={err} />
    </div>
  );
};

export const TextArea: FC<Omit<InputProps, 'type' | 'list' | 'autocomplete'> & { rows?: number }> = (p) => {
  const err = p.errors[p.id];
  const describedBy = describedByOf(p.id, p.hint, err);
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <textarea
        id={p.id}
        name={p.name}
        rows={p.rows ?? 4}
        maxlength={p.maxlength}
        required={p.required}
        placeholder={p.placeholder}
        aria-invalid={err ? 'true' : undefined}
        aria-describedby={describedBy}
      >
        {p.value ?? ''}
      </textarea>
      <FieldNotes id={p.id} hint={p.hint} error={err} />
    </div>
  );
};
