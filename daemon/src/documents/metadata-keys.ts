// The metadata keys in the caller's visible scope, with the values seen most often: what a filter
// form offers (the web UI's search page). Read from the newest KEY_SAMPLE documents, so the cost
// stays flat however large the collections grow, as for the tag suggestions (web/queries.ts).
import { visibleToCaller } from '../auth/access.js';
import type { AppDeps, Caller } from '../types.js';

/** Documents read, newest first. */
export const KEY_SAMPLE = 500;
/** Keys returned, the most used first. */
export const MAX_KEYS = 50;
/** Values returned per key, the most frequent first. */
export const MAX_VALUES = 20;

export type MetadataValueType = 'string' | 'number' | 'boolean' | 'array';

export interface MetadataKey {
  key: string;
  /** Documents of the sample that carry the key. */
  documents: number;
  /** The JSON types its values have in the sample (an array's elements are strings). */
  types: MetadataValueType[];
  /** Values as text (array elements one by one), the most frequent first. */
  values: string[];
}

/** `collections`: slugs that narrow the scope (ones the caller cannot see add nothing). */
export async function metadataKeys(deps: AppDeps, caller: Caller, opts: { collections?: string[] } = {}): Promise<MetadataKey[]> {
  const sql = deps.sql;
  const only = opts.collections?.length ? sql`and c.slug in ${sql(opts.collections)}` : sql``;
  const rows = await sql<{ key: string; documents: number; types: MetadataValueType[]; values: string[] }[]>`
    with recent as (
      select d.metadata
        from documents d join collections c on c.id = d.collection_id
       where d.deleted_at is null and d.metadata <> '{}'::jsonb and ${visibleToCaller(sql, caller)} ${only}
       order by d.created_at desc, d.id desc
       limit ${KEY_SAMPLE}
    ), entries as (
      select e.key, e.value from recent, jsonb_each(recent.metadata) e
    ), keys as (
      select key, count(*)::int as documents, array_agg(distinct jsonb_typeof(value)) as types
        from entries group by key
       order by count(*) desc, key
       limit ${MAX_KEYS}
    ), counted as (
      select en.key, v.value, count(*) as n,
             row_number() over (partition by en.key order by count(*) desc, v.value) as rank
        from entries en join keys k on k.key = en.key,
             lateral (select jsonb_array_elements_text(en.value) where jsonb_typeof(en.value) = 'array'
                      union all
                      select en.value #>> '{}' where jsonb_typeof(en.value) <> 'array') v(value)
       group by en.key, v.value
    )
    select k.key, k.documents, k.types,
           coalesce(array_agg(c.value order by c.rank) filter (where c.rank <= ${MAX_VALUES}), '{}') as values
      from keys k left join counted c on c.key = k.key
     group by k.key, k.documents, k.types
     order by k.documents desc, k.key`;
  return rows.map((r) => ({ ...r, types: r.types.map((t) => (t === 'string' || t === 'number' || t === 'boolean' ? t : 'array')) }));
}
