// A checked filter (parse.ts) as one SQL condition on a documents row aliased `d`. Every value is a
// bound parameter; field names and operators only choose among fixed fragments. Every leaf is true
// or false, never NULL (a missing key is false for eq, gt…; CASE guards each cast), so `not` and
// `ne` are exact complements and the oracle in test/search.filter.test.ts holds.
import type postgres from 'postgres';
import type { Tx } from '../db/client.js';
import type { Field, FilterNode, Leaf, Scalar } from './parse.js';

type Fragment = postgres.PendingQuery<postgres.Row[]>;

function join(tx: Tx, parts: Fragment[], word: 'and' | 'or'): Fragment {
  const inner = parts.slice(1).reduce((acc, p) => (word === 'and' ? tx`${acc} and ${p}` : tx`${acc} or ${p}`), parts[0]!);
  return tx`(${inner})`;
}

const CMP = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** PostgreSQL's type oid of jsonb[] (built in, fixed): a value list is bound as one such parameter. */
const JSONB_ARRAY = 3807;

/** `xs` as a jsonb[] literal, the text PostgreSQL reads the parameter from. */
function jsonbArrayLiteral(xs: unknown[]): string {
  return `{${xs.map((x) => `"${JSON.stringify(x).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/**
 * Metadata equality with any of `values`: the key holds one of them, or (strings) an array holding
 * one. One `@> any(jsonb[])`: a GIN lookup per element, or about 0.1 µs per element and row when
 * tested row by row. One bind parameter however long the list, typed jsonb[] and written once per
 * request (each statement embedding the filter copies the text), read through a one-value
 * InitPlan. For the largest filter (1,000 probes), planning takes 0.3-0.4 ms per statement, where
 * a Const array had the planner estimate every probe against the statistics (12-43 ms), a text[]
 * cast inline ran again for every row (1.2-1.6 s over 20,000 rows) and an InitPlan building the
 * probes in SQL took 11-13 ms to plan; serializing the probes per statement cost 4-6 ms.
 */
function metaAny(tx: Tx, key: string, values: Scalar[]): Fragment {
  const probes: Record<string, Scalar | string[]>[] = [];
  for (const v of values) {
    probes.push({ [key]: v });
    if (typeof v === 'string') probes.push({ [key]: [v] });
  }
  return tx`(d.metadata @> any((select ${tx.typed(jsonbArrayLiteral(probes), JSONB_ARRAY)})::jsonb[]))`;
}

function metaLeaf(tx: Tx, key: string, l: Leaf): Fragment {
  switch (l.op) {
    case 'eq':
      return metaAny(tx, key, [l.value]);
    case 'ne':
      return tx`not ${metaAny(tx, key, [l.value])}`;
    case 'in':
      return metaAny(tx, key, l.value);
    case 'nin':
      return tx`not ${metaAny(tx, key, l.value)}`;
    case 'exists':
      return l.value ? tx`(d.metadata ? ${key})` : tx`not (d.metadata ? ${key})`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const cmp = tx.unsafe(CMP[l.op]);
      // Numbers compare as numbers (numeric: exact for every JSON number), strings by code point
      // (collation "C"); a string-array key matches when one element does; other types never.
      if (typeof l.value === 'number')
        return tx`(case when jsonb_typeof(d.metadata -> ${key}) = 'number' then (d.metadata ->> ${key})::numeric ${cmp} ${String(l.value)}::numeric else false end)`;
      return tx`(case jsonb_typeof(d.metadata -> ${key})
        when 'string' then (d.metadata ->> ${key}) collate "C" ${cmp} ${l.value}::text
        when 'array' then exists (select 1 from jsonb_array_elements_text(d.metadata -> ${key}) e where e collate "C" ${cmp} ${l.value}::text)
        else false end)`;
    }
    case 'prefix':
      return tx`false`;
  }
}

/** A column-backed field: `col` is the SQL expression, `cast` the parameter type. */
function columnLeaf(tx: Tx, col: Fragment, cast: Fragment, l: Leaf): Fragment {
  switch (l.op) {
    case 'eq':
      return tx`${col} = ${l.value as string}${cast}`;
    case 'ne':
      return tx`${col} <> ${l.value as string}${cast}`;
    case 'in':
      return tx`${col} = any(${l.value.map(String)}${cast}[])`;
    case 'nin':
      return tx`not (${col} = any(${l.value.map(String)}${cast}[]))`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return tx`${col} ${tx.unsafe(CMP[l.op])} ${l.value as string}${cast}`;
    case 'prefix':
      return tx`starts_with(${col}, ${l.value}::text)`;
    case 'exists':
      return tx`true`;
  }
}

function tagsLeaf(tx: Tx, l: Leaf): Fragment {
  const has = (values: Scalar[]) =>
    tx`exists (select 1 from unnest(d.tags) t where lower(t) = any(${values.map((v) => String(v).toLowerCase())}::text[]))`;
  switch (l.op) {
    case 'eq':
      return has([l.value]);
    case 'ne':
      return tx`not ${has([l.value])}`;
    case 'in':
      return has(l.value);
    case 'nin':
      return tx`not ${has(l.value)}`;
    case 'exists':
      return l.value ? tx`cardinality(d.tags) > 0` : tx`cardinality(d.tags) = 0`;
    default:
      return tx`false`;
  }
}

function leafSql(tx: Tx, field: Field, l: Leaf): Fragment {
  switch (field.kind) {
    case 'metadata':
      return metaLeaf(tx, field.key, l);
    case 'tags':
      return tagsLeaf(tx, l);
    case 'source_type':
      return columnLeaf(tx, tx`d.source_type`, tx`::text`, l);
    case 'original_filename':
      return columnLeaf(tx, tx`d.original_filename`, tx`::text`, l);
    case 'document':
      return columnLeaf(tx, tx`d.id`, tx`::uuid`, l);
    case 'created_at':
      return columnLeaf(tx, tx`d.created_at`, tx`::timestamptz`, l);
    case 'collection':
      // Slugs name collections; the caller's visibility is applied by the query this condition joins.
      return columnLeaf(tx, tx`(select s.slug from collections s where s.id = d.collection_id)`, tx`::text`, l);
  }
}

/** The filter as a boolean SQL expression over `d` (documents). */
export function compileFilter(tx: Tx, f: FilterNode): Fragment {
  if ('and' in f)
    return join(
      tx,
      f.and.map((x) => compileFilter(tx, x)),
      'and',
    );
  if ('or' in f)
    return join(
      tx,
      f.or.map((x) => compileFilter(tx, x)),
      'or',
    );
  if ('not' in f) return tx`(not ${compileFilter(tx, f.not)})`;
  return tx`(${leafSql(tx, f.field, f)})`;
}
