// Facet counts: for each requested field, how many documents of a set carry each value, the most
// frequent first. One statement per request whatever the fields, over a bounded set of documents:
// - search: the distinct documents of the ranked candidates (the best FACET_CANDIDATES chunks of
//   each channel that pass the collections, tags, filter, quoted phrases, exclusions, relevance
//   floor and score_threshold), before `limit` and `max_chunks_per_document`;
// - the document list: the documents passing its collection, tag, status and filter, the newest
//   FACET_MAX_DOCUMENTS of them.
import type { Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';
import { validationError } from '../errors.js';
import { METADATA_KEY, METADATA_KEY_RULE, METADATA_LIMITS } from '../metadata.js';
import type { Fragment } from './conditions.js';

/** Fields one request may count. */
export const FACET_MAX_FIELDS = 10;
/** Values returned per field, the most frequent first (ties by value). */
export const FACET_MAX_VALUES = 20;
/** Documents the list's facets count at most, newest first. */
export const FACET_MAX_DOCUMENTS = 10_000;

export const FACET_FIELDS_RULE = `"tags", "collection" or "metadata.<key>" (${METADATA_KEY_RULE}); at most ${FACET_MAX_FIELDS} fields.`;

export type FacetValue = string | number | boolean;
export type Facets = Record<string, { value: FacetValue; count: number }[]>;

/** Whether a facet field is one this service counts: `tags`, `collection` or `metadata.<key>`. */
function facetFieldProblem(field: string): string | undefined {
  if (field === 'tags' || field === 'collection') return undefined;
  if (!field.startsWith('metadata.')) return `Unknown facet field "${field}": use ${FACET_FIELDS_RULE}`;
  const key = field.slice('metadata.'.length);
  if (!key || key.length > METADATA_LIMITS.keyLength || !METADATA_KEY.test(key))
    return `Bad metadata key in "${field}": ${METADATA_KEY_RULE}`;
  return undefined;
}

/**
 * The requested fields, checked: 400 VALIDATION_FAILED naming `facets` (the cap) or `facets[i]`
 * (an unknown field). Duplicates count once.
 */
export function checkFacetFields(fields: readonly string[], name = 'facets'): string[] {
  const unique = [...new Set(fields)];
  if (unique.length > FACET_MAX_FIELDS)
    throw validationError({ [name]: [`At most ${FACET_MAX_FIELDS} facet fields per request (got ${unique.length}).`] });
  const bad: Record<string, string[]> = {};
  fields.forEach((f, i) => {
    const problem = facetFieldProblem(f);
    if (problem) bad[`${name}[${i}]`] = [problem];
  });
  if (Object.keys(bad).length) throw validationError(bad);
  return unique;
}

/** `facets=tags,metadata.dept` (a query parameter) as a list; empty entries ignored. */
export function facetFieldsFromText(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Counts over the documents `docs` selects (a statement selecting one uuid column `id`, of live
 * documents the caller may see: the caller's conditions are the selection's own), the first `cap`
 * of them. Each document counts once per value; an array value counts each of its strings; a
 * missing key counts nothing. `documents`: how many `docs` selected, up to cap + 1 (more than cap:
 * the counts stopped there).
 */
export async function countFacets(
  tx: Tx,
  docs: Fragment,
  fields: readonly string[],
  opts: { timeoutMs: number; cap?: number },
): Promise<{ facets: Facets; documents: number }> {
  const facets: Facets = Object.fromEntries(fields.map((f) => [f, []]));
  const cap = opts.cap ?? 1e9;
  const rows = await withinTimeout(
    tx<{ field: string | null; value: FacetValue; count: number }[]>`
    with seen as materialized (select id from (${docs}) x limit ${cap + 1}),
    docs as (select id from seen limit ${cap}),
    f as (select field, case when field like 'metadata.%' then substr(field, 10) end as key from unnest(${fields as string[]}::text[]) as field),
    vals as (
      select distinct d.id, f.field, v.value
        from docs join documents d on d.id = docs.id
        join collections col on col.id = d.collection_id
        cross join f
        cross join lateral (
          select to_jsonb(t) from unnest(d.tags) t where f.field = 'tags'
          union all
          select to_jsonb(col.slug) where f.field = 'collection'
          union all
          select e from jsonb_array_elements(d.metadata -> f.key) e where f.key is not null and jsonb_typeof(d.metadata -> f.key) = 'array'
          union all
          select d.metadata -> f.key where f.key is not null and jsonb_typeof(d.metadata -> f.key) in ('string', 'number', 'boolean')
        ) v(value)
    ),
    counted as (
      select field, value, count(*)::int as count,
             row_number() over (partition by field order by count(*) desc, value #>> '{}') as rank
        from vals group by field, value
    )
    select field, value, count, rank from counted where rank <= ${FACET_MAX_VALUES}
    union all
    select null, null, (select count(*) from seen)::int, 0
    order by field nulls first, rank`,
    opts.timeoutMs,
  );
  let documents = 0;
  for (const r of rows) {
    if (r.field === null) documents = r.count;
    else facets[r.field]!.push({ value: r.value, count: r.count });
  }
  return { facets, documents };
}

/**
 * The documents of a search's ranked candidates (chunk ids), checked as hydrate checks a result:
 * live, indexed, of the chunk's generation, passing the filter as the documents are now.
 */
export function candidateDocuments(tx: Tx, chunkIds: readonly string[], passes: Fragment | undefined): Fragment {
  return tx`select distinct d.id
      from unnest(string_to_array(${chunkIds.join(',')}, ',')::uuid[]) as f(id)
      join chunks c on c.id = f.id
      join documents d on d.id = c.document_id and d.deleted_at is null and d.status = 'indexed' and d.generation = c.generation
        ${passes ? tx`and ${passes}` : tx``}`;
}
