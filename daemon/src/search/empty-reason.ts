import type { Tx } from '../db/client.js';
import { diagnoseFilter, type FilterWarning } from '../filters/diagnose.js';
import type { Conditions, SearchScope } from './conditions.js';
import { operatorParts, withoutOperators } from './operators.js';

/**
 * Why a search answered nothing, for programs (`code`) and people (`message`):
 * - `no_documents`: the searched collections hold no indexed document;
 * - `no_documents_pass_filter`: they do, but none passes the filter and tags, so the query's wording
 *   was never the cause;
 * - `below_score_threshold`: results were found and `score_threshold` dropped every one;
 * - `operators_left_nothing`: the same search without the query's "phrases" and -exclusions finds
 *   results, and none passes them;
 * - `no_match`: documents were searched and none matched (text: none holds a query word; hybrid:
 *   none holds enough of them, and none is close enough in meaning).
 */
export type EmptyReasonCode = 'no_documents' | 'no_documents_pass_filter' | 'below_score_threshold' | 'operators_left_nothing' | 'no_match';

export interface EmptyReason {
  code: EmptyReasonCode;
  message: string;
}

/** What an empty answer carries: its reason and, under a filter, the filter's warnings. */
export interface EmptyAnswer {
  reason: EmptyReason;
  warnings: FilterWarning[];
}

function filterWords(f: SearchScope): string {
  return f.where && f.tags?.length ? 'the filter and tags' : f.where ? 'the filter' : 'the tags';
}

/**
 * The reason for an empty answer, read after the search found nothing: one statement for whether the
 * searched collections hold indexed documents and whether any passes the filter and tags (the
 * request's one compilation of them, `c`), then the filter's warnings (filters/diagnose.ts) when none does.
 */
export async function explainEmpty(
  tx: Tx,
  c: Conditions,
  f: SearchScope,
  o: { mode: 'hybrid' | 'text' | 'vector'; dropped: { threshold: number } | null },
): Promise<EmptyAnswer> {
  const filtered = !!f.where || !!f.tags?.length;
  const [row] = f.collectionIds.length
    ? await tx<{ indexed: boolean; passing: boolean }[]>`
        with ids as materialized (select string_to_array(${f.collectionIds.join(',')}, ',')::uuid[] as a)
        select exists (select 1 from documents d where d.collection_id = any((select a from ids)::uuid[])
                          and d.deleted_at is null and d.status = 'indexed') as indexed,
               ${
                 filtered
                   ? tx`exists (select 1 from documents d where d.collection_id = any((select a from ids)::uuid[])
                          and d.deleted_at is null and d.status = 'indexed'
                          ${f.tags?.length ? tx`and exists (select 1 from unnest(d.tags) t where lower(t) = any(${f.tags.map((t) => t.toLowerCase())}::text[]))` : tx``}
                          ${c.passes ? tx`and ${c.passes}` : tx``})`
                   : tx`true`
               } as passing`
    : [{ indexed: false, passing: false }];
  if (!row!.indexed)
    return {
      reason: {
        code: 'no_documents',
        message: f.collectionIds.length
          ? 'The searched collections hold no indexed document yet.'
          : 'There is no collection to search: none is visible to this key.',
      },
      warnings: [],
    };
  if (!row!.passing)
    return {
      reason: {
        code: 'no_documents_pass_filter',
        message: `No document in the searched collections passes ${filterWords(f)}, so nothing was searched: the query's wording is not the cause.`,
      },
      warnings: f.where ? await diagnoseFilter(tx, f.where, f.collectionIds) : [],
    };
  if (o.dropped)
    return {
      reason: {
        code: 'below_score_threshold',
        message: `Results were found, but none scores at least score_threshold ${o.dropped.threshold}.`,
      },
      warnings: [],
    };
  return {
    reason: {
      code: 'no_match',
      message:
        'Nothing relevant was found in the searched documents: ' +
        (o.mode === 'text'
          ? 'none holds any of the query’s words.'
          : o.mode === 'vector'
            ? 'no chunk is similar enough to the query.'
            : 'none holds enough of the query’s words, and none is close enough to it in meaning.'),
    },
    warnings: [],
  };
}

/**
 * When nothing matched a query with operators, whether its words alone find something decides the
 * blame: `findsWithout` runs the same search (scope, filter, mode) on withoutOperators(query), one
 * more search on this path only. If it cannot answer, the reason stays `no_match`.
 */
export async function blameOperators(
  empty: EmptyAnswer,
  query: string,
  findsWithout: (words: string) => Promise<boolean>,
): Promise<EmptyAnswer> {
  const { required, excluded } = operatorParts(query);
  const words = withoutOperators(query);
  if (empty.reason.code !== 'no_match' || !(required.length || excluded.length) || !words) return empty;
  if (!(await findsWithout(words).catch(() => false))) return empty;
  const quoted = (xs: string[], joiner: string) => xs.map((x) => `"${x}"`).join(joiner);
  const rules = [
    ...(required.length ? [`every result must hold ${quoted(required, ' and ')}`] : []),
    ...(excluded.length ? [`none may hold ${quoted(excluded, ' or ')}`] : []),
  ];
  return {
    reason: {
      code: 'operators_left_nothing',
      message: `Nothing passes the query’s operators, though the same search without them finds results: ${rules.join(', and ')}.`,
    },
    warnings: [],
  };
}
