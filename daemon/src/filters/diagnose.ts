// Why a filter may pass nothing, in words a person or an agent can act on: a string compared with a
// metadata key that holds only numbers (or a number with one that holds only strings), a key no
// searched document has (with the keys that differ only in case), a string value no document has
// (with the values that differ only in case). Read when a filtered search found nothing.
import type { Tx } from '../db/client.js';
import type { FilterNode, Leaf, Scalar } from './parse.js';

export type FilterWarningCode = 'string_compared_with_number' | 'number_compared_with_string' | 'unknown_field' | 'value_not_found';

export interface FilterWarning {
  code: FilterWarningCode;
  /** The metadata key as the filter wrote it. */
  field: string;
  message: string;
  /** Keys or values of the searched documents that differ only in case. */
  did_you_mean?: string[];
}

type MetaLeaf = Leaf & { field: { kind: 'metadata'; key: string } };

function metadataLeaves(f: FilterNode, out: MetaLeaf[] = []): MetaLeaf[] {
  if ('and' in f) for (const x of f.and) metadataLeaves(x, out);
  else if ('or' in f) for (const x of f.or) metadataLeaves(x, out);
  else if ('not' in f) metadataLeaves(f.not, out);
  else if (f.field.kind === 'metadata') out.push(f as MetaLeaf);
  return out;
}

const values = (l: MetaLeaf): Scalar[] => (l.op === 'exists' ? [] : Array.isArray(l.value) ? l.value : [l.value as Scalar]);

interface KeyFacts {
  key: string;
  docs: number;
  numbers: number;
  strings: number;
  keys_like: string[] | null;
}

/**
 * The warnings for the metadata clauses of `f` over the live documents of the searched collections.
 * One statement for the keys (how many documents hold each, as numbers and as strings; keys that
 * differ only in case for those none holds), one for string values of equality clauses.
 */
export async function diagnoseFilter(tx: Tx, f: FilterNode, collectionIds: readonly string[]): Promise<FilterWarning[]> {
  const leaves = metadataLeaves(f);
  if (!leaves.length || !collectionIds.length) return [];
  const keys = [...new Set(leaves.map((l) => l.field.key))];
  const facts = await tx<KeyFacts[]>`
    with ids as materialized (select string_to_array(${collectionIds.join(',')}, ',')::uuid[] as a),
    docs as materialized (
      select d.metadata from documents d where d.collection_id = any((select a from ids)::uuid[]) and d.deleted_at is null
    )
    select k.key,
           (select count(*) from docs where docs.metadata ? k.key)::int as docs,
           (select count(*) from docs where jsonb_typeof(docs.metadata -> k.key) = 'number')::int as numbers,
           (select count(*) from docs where jsonb_typeof(docs.metadata -> k.key) in ('string', 'array'))::int as strings,
           case when not exists (select 1 from docs where docs.metadata ? k.key) then
             (select array_agg(distinct x order by x) from docs cross join lateral jsonb_object_keys(docs.metadata) x where lower(x) = lower(k.key))
           end as keys_like
      from unnest(${keys}::text[]) as k(key)`;
  const byKey = new Map(facts.map((r) => [r.key, r]));
  const warnings: FilterWarning[] = [];
  const seen = new Set<string>();
  const warn = (w: FilterWarning) => {
    const id = `${w.code}\u0000${w.field}`;
    if (seen.has(id)) return;
    seen.add(id);
    warnings.push(w);
  };
  const stringValues: { key: string; value: string }[] = [];
  for (const l of leaves) {
    const k = byKey.get(l.field.key);
    if (!k) continue;
    const vs = values(l);
    if (k.docs === 0) {
      warn({
        code: 'unknown_field',
        field: k.key,
        message: `No searched document has the metadata key "${k.key}"${k.keys_like?.length ? `; did you mean ${k.keys_like.map((x) => `"${x}"`).join(' or ')}?` : '.'}`,
        ...(k.keys_like?.length ? { did_you_mean: k.keys_like } : {}),
      });
      continue;
    }
    const str = vs.find((v) => typeof v === 'string');
    const num = vs.find((v) => typeof v === 'number');
    if (str !== undefined && k.numbers === k.docs)
      warn({
        code: 'string_compared_with_number',
        field: k.key,
        message: `"${k.key}" holds only numbers in the searched documents, and "${str}" is a string, which never matches a number: write it without quotes.`,
      });
    else if (num !== undefined && k.strings === k.docs)
      warn({
        code: 'number_compared_with_string',
        field: k.key,
        message: `"${k.key}" holds only strings in the searched documents, and ${num} is a number, which never matches a string: write it in quotes.`,
      });
    else if (l.op === 'eq' || l.op === 'in') for (const v of vs) if (typeof v === 'string') stringValues.push({ key: k.key, value: v });
  }
  if (stringValues.length) {
    const rows = await tx<{ key: string; value: string; found: boolean; like: string[] | null }[]>`
      with ids as materialized (select string_to_array(${collectionIds.join(',')}, ',')::uuid[] as a),
      docs as materialized (
        select d.metadata from documents d where d.collection_id = any((select a from ids)::uuid[]) and d.deleted_at is null
      )
      select v.key, v.value, x.found,
             case when not x.found then
               (select array_agg(distinct e order by e) from docs
                 cross join lateral jsonb_array_elements_text(case jsonb_typeof(docs.metadata -> v.key) when 'array' then docs.metadata -> v.key
                                                                   else jsonb_build_array(docs.metadata -> v.key) end) e
                 where docs.metadata ? v.key and lower(e) = lower(v.value))
             end as like
        from jsonb_to_recordset(${tx.json(stringValues as never)}::jsonb) as v(key text, value text)
       cross join lateral (
         select exists (select 1 from docs where docs.metadata @> jsonb_build_object(v.key, v.value)
                                               or docs.metadata @> jsonb_build_object(v.key, jsonb_build_array(v.value))) as found
       ) x`;
    for (const r of rows)
      if (!r.found)
        warn({
          code: 'value_not_found',
          field: r.key,
          message: `No searched document has "${r.key}" = "${r.value}"${r.like?.length ? `; did you mean ${r.like.map((x) => `"${x}"`).join(' or ')}? Values are compared exactly, case included` : ''}.`,
          ...(r.like?.length ? { did_you_mean: r.like } : {}),
        });
  }
  return warnings;
}
