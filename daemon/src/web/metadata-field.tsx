// Metadata in the web UI: the text field of the upload, add-text, add-URL and edit forms (one
// `key = value` per line, metadata-text.ts), and its display as a list or as chips.
import type { FC } from 'hono/jsx';
import type { Metadata } from '../documents/metadata.js';
import type { FieldErrors } from '../errors.js';
import { TextArea, type FormErrors } from './forms.js';
import { formatMetadataValue } from './metadata-text.js';

export const METADATA_HINT = 'Optional. One per line: key = value. 2024 is a number, true a boolean, "2024" text, ["a", "b"] a list.';

export const MetadataField: FC<{ id: string; value: string; errors: FormErrors }> = ({ id, value, errors }) => (
  <TextArea
    id={id}
    name="metadata"
    label="Metadata"
    value={value}
    errors={errors}
    rows={Math.min(12, Math.max(3, value.split('\n').length + 1))}
    maxlength={16_384}
    placeholder={'dept = legal\nyear = 2024'}
    hint={METADATA_HINT}
  />
);

/** Error fields of metadata (`metadata`, `metadata.year`, `metadata.parties[2]`) as one field, for the form's text area. */
export function oneMetadataField(fields: FieldErrors | undefined): FieldErrors | undefined {
  if (!fields) return fields;
  const out: FieldErrors = {};
  for (const [k, v] of Object.entries(fields)) {
    const name = k === 'metadata' || k.startsWith('metadata.') || k.startsWith('metadata[') ? 'metadata' : k;
    out[name] = [...(out[name] ?? []), ...v.map((m) => (name !== k ? `${k.slice('metadata.'.length)}: ${m}` : m))];
  }
  return out;
}

const sorted = (meta: Metadata) => Object.keys(meta).sort();

/** Definition list of a document's metadata; a dash when it has none. */
export const MetadataList: FC<{ meta: Metadata }> = ({ meta }) =>
  sorted(meta).length ? (
    <dl class="meta-list">
      {sorted(meta).map((k) => (
        <>
          <dt class="mono">{k}</dt>
          <dd class="mono wrap">{formatMetadataValue(meta[k]!)}</dd>
        </>
      ))}
    </dl>
  ) : (
    <span>—</span>
  );

/** `key: value` chips (search results); `href` makes each a link (a filter on that value). */
export const MetadataChips: FC<{ meta: Metadata; href?: (key: string, value: string) => string }> = ({ meta, href }) => {
  const pairs = sorted(meta).flatMap((k) => {
    const v = meta[k]!;
    return (Array.isArray(v) ? v : [v]).map((x) => [k, typeof x === 'string' ? x : String(x)] as const);
  });
  if (!pairs.length) return null;
  return (
    <span class="chips meta-chips">
      {pairs.map(([k, v]) =>
        href ? (
          <a class="chip meta" href={href(k, v)} title={`Only results where ${k} is ${v}`}>
            <span class="meta-key">{k}:</span> {v}
          </a>
        ) : (
          <span class="chip meta">
            <span class="meta-key">{k}:</span> {v}
          </span>
        ),
      )}
    </span>
  );
};
