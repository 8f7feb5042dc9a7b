// Facet counts over the document list: the documents the list's query (collection, tag, status,
// filter) selects, the newest FACET_MAX_DOCUMENTS of them, counted in one statement (search/facets.ts).
import { parseFilterText } from '../filters/parse.js';
import { checkFacetFields, countFacets, FACET_MAX_DOCUMENTS, facetFieldsFromText, type Facets } from '../search/facets.js';
import type { AppDeps, Caller } from '../types.js';
import { listConditions, type DocumentStatus } from './queries.js';

export interface ListFacetsQuery {
  facets: string;
  tag?: string;
  collection?: string;
  status?: DocumentStatus;
  filter?: string;
}

export interface ListFacets {
  facets: Facets;
  /** Documents counted over (at most FACET_MAX_DOCUMENTS). */
  documents: number;
  /** Whether more documents matched than were counted. */
  truncated: boolean;
}

export async function listFacets(deps: AppDeps, caller: Caller, q: ListFacetsQuery): Promise<ListFacets> {
  const fields = checkFacetFields(facetFieldsFromText(q.facets));
  const where = q.filter === undefined ? undefined : parseFilterText(q.filter);
  const timeoutMs = deps.config.STATEMENT_TIMEOUT_MS;
  return deps.reads.run(async (sql) => {
    const docs = sql`select d.id from documents d join collections c on c.id = d.collection_id
       where ${listConditions(sql, caller, { tag: q.tag, collection: q.collection, status: q.status, where })}
       order by d.created_at desc, d.id desc`;
    const { facets, documents } = await countFacets(sql, docs, fields, { timeoutMs, cap: FACET_MAX_DOCUMENTS });
    return { facets, documents: Math.min(documents, FACET_MAX_DOCUMENTS), truncated: documents > FACET_MAX_DOCUMENTS };
  });
}
