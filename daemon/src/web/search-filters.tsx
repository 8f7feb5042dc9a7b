// The search page's collection picker (several at once: the API's `collections`) and its metadata
// conditions, offered from the keys and values found in the searched scope
// (documents/metadata-keys.ts) and sent as the API's `filter`, checked by its own parser.
import type { FC } from 'hono/jsx';
import type { CollectionRow } from '../collections/queries.js';
import type { MetadataKey } from '../documents/metadata-keys.js';
import { AppError } from '../errors.js';
import { parseFilter, type FilterNode } from '../filters/parse.js';
import type { FormErrors } from './forms.js';
import { FieldError } from './layout.js';

export const META_OPS = [
  { id: 'eq', label: '=' },
  { id: 'ne', label: '≠' },
  { id: 'gt', label: '>' },
  { id: 'gte', label: '≥' },
  { id: 'lt', label: '<' },
  { id: 'lte', label: '≤' },
  { id: 'exists', label: 'is set' },
  { id: 'missing', label: 'is not set' },
] as const;
export type MetaOp = (typeof META_OPS)[number]['id'];
/** Condition rows on the page: the filled ones plus one empty, at most this many. */
export const MAX_CONDITIONS = 5;

export interface MetaCondition {
  key: string;
  op: MetaOp;
  value: string;
}

/** The conditions of a query string: parallel `mk` (key), `mo` (operator) and `mv` (value) lists; rows without a key are left out. */
export function readConditions(q: (name: string) => string[] | undefined): MetaCondition[] {
  const [keys, ops, values] = [q('mk') ?? [], q('mo') ?? [], q('mv') ?? []];
  return keys
    .map((k, i) => ({ key: k.trim(), op: META_OPS.find((o) => o.id === ops[i])?.id ?? 'eq', value: (values[i] ?? '').trim() }))
    .filter((c) => c.key)
    .slice(0, MAX_CONDITIONS);
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** A value typed as the key's values are in scope; a key not seen there reads as the CLI's --where does. */
function typed(c: MetaCondition, known: MetadataKey | undefined): { value?: string | number | boolean; error?: string } {
  const types = known?.types ?? [];
  if (types.length === 1 && types[0] === 'number')
    return NUMBER.test(c.value) ? { value: Number(c.value) } : { error: `${c.key} holds numbers.` };
  if (types.length === 1 && types[0] === 'boolean')
    return c.value === 'true' || c.value === 'false' ? { value: c.value === 'true' } : { error: `${c.key} is true or false.` };
  if (types.length) return { value: c.value };
  if (NUMBER.test(c.value)) return { value: Number(c.value) };
  return { value: c.value === 'true' ? true : c.value === 'false' ? false : c.value };
}

/** The conditions as one checked filter (all must hold), or the errors beside their rows. */
export function metaFilter(conditions: MetaCondition[], keys: MetadataKey[]): { filter?: FilterNode; errors: FormErrors } {
  const errors: FormErrors = {};
  const clauses: Record<string, unknown>[] = [];
  for (const [i, c] of conditions.entries()) {
    const field = `metadata.${c.key}`;
    if (c.op === 'exists' || c.op === 'missing') {
      clauses.push({ [field]: { exists: c.op === 'exists' } });
      continue;
    }
    if (!c.value) {
      errors[`meta-value-${i}`] = `Give a value for ${c.key}, or pick “is set”.`;
      continue;
    }
    const t = typed(
      c,
      keys.find((k) => k.key === c.key),
    );
    if (t.error) errors[`meta-value-${i}`] = t.error;
    else clauses.push({ [field]: { [c.op]: t.value } });
  }
  if (Object.keys(errors).length || !clauses.length) return { errors };
  try {
    return { filter: parseFilter(clauses.length === 1 ? clauses[0] : { and: clauses }), errors };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // The parser names the clause (filter.and[1]…), which is the row with that index.
    const at = Object.keys(err.fields ?? {})
      .map((f) => /and\[(\d+)\]/.exec(f)?.[1])
      .find(Boolean);
    const row = Number(at ?? 0);
    return { errors: { [`meta-key-${row}`]: Object.values(err.fields ?? {}).flat()[0] ?? err.message } };
  }
}

export const MetaConditions: FC<{ conditions: MetaCondition[]; keys: MetadataKey[]; errors: FormErrors }> = ({
  conditions,
  keys,
  errors,
}) => {
  const rows = [...conditions, { key: '', op: 'eq' as MetaOp, value: '' }].slice(0, MAX_CONDITIONS);
  const listOf = (key: string) => {
    const i = keys.findIndex((k) => k.key === key);
    return i >= 0 ? `meta-values-${i}` : undefined;
  };
  return (
    <fieldset class="meta-filter">
      <legend>Metadata</legend>
      <p class="hint" id="meta-hint">
        {keys.length
          ? 'Only results whose document matches every condition. Keys and values are suggested from the documents you can search.'
          : 'No document you can search has metadata yet; conditions on any key still work.'}
      </p>
      <datalist id="meta-keys">
        {keys.map((k) => (
          <option value={k.key}>{`${k.documents} ${k.documents === 1 ? 'document' : 'documents'}`}</option>
        ))}
      </datalist>
      {keys.map((k, i) => (
        <datalist id={`meta-values-${i}`} data-meta-key={k.key}>
          {k.values.map((v) => (
            <option value={v} />
          ))}
        </datalist>
      ))}
      {rows.map((c, i) => (
        <div class="meta-row" data-meta-row>
          <div class="field">
            <label for={`meta-key-${i}`}>Key</label>
            <input
              id={`meta-key-${i}`}
              name="mk"
              type="text"
              value={c.key}
              list="meta-keys"
              autocomplete="off"
              placeholder="dept"
              maxlength={64}
              aria-invalid={errors[`meta-key-${i}`] ? 'true' : undefined}
              aria-describedby={errors[`meta-key-${i}`] ? `meta-key-${i}-error` : 'meta-hint'}
            />
            <FieldError id={`meta-key-${i}-error`} message={errors[`meta-key-${i}`]} />
          </div>
          <div class="field op">
            <label for={`meta-op-${i}`}>Condition</label>
            <select id={`meta-op-${i}`} name="mo">
              {META_OPS.map((o) => (
                <option value={o.id} selected={o.id === c.op}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`meta-value-${i}`}>Value</label>
            <input
              id={`meta-value-${i}`}
              name="mv"
              type="text"
              value={c.value}
              list={listOf(c.key)}
              autocomplete="off"
              placeholder="legal"
              maxlength={1000}
              aria-invalid={errors[`meta-value-${i}`] ? 'true' : undefined}
              aria-describedby={errors[`meta-value-${i}`] ? `meta-value-${i}-error` : undefined}
            />
            <FieldError id={`meta-value-${i}-error`} message={errors[`meta-value-${i}`]} />
          </div>
        </div>
      ))}
    </fieldset>
  );
};

/** Collections to search, several at once; none ticked searches every visible collection. */
export const CollectionPicker: FC<{ collections: CollectionRow[]; selected: string[]; error?: string }> = ({
  collections,
  selected,
  error,
}) => {
  const picked = collections.filter((c) => selected.includes(c.slug));
  const summary = !picked.length ? 'All collections' : picked.length === 1 ? picked[0]!.name : `${picked.length} collections`;
  return (
    <div class="field picker-field">
      <span class="label" id="search-collection-label">
        In collections
      </span>
      <details class="picker" id="search-collection" data-picker>
        <summary
          aria-labelledby="search-collection-label search-collection-summary"
          aria-describedby={error ? 'search-collection-error' : undefined}
          aria-invalid={error ? 'true' : undefined}
        >
          <span id="search-collection-summary" data-picker-summary data-all="All collections">
            {summary}
          </span>
        </summary>
        <fieldset class="picker-panel">
          <legend class="visually-hidden">Collections to search (none: all)</legend>
          {collections.length ? null : <p class="muted">No collections yet.</p>}
          {collections.map((c) => (
            <label class="choice">
              <input type="checkbox" name="collection" value={c.slug} checked={selected.includes(c.slug)} data-name={c.name} />
              <span>{c.name}</span>
            </label>
          ))}
        </fieldset>
      </details>
      <FieldError id="search-collection-error" message={error} />
    </div>
  );
};
