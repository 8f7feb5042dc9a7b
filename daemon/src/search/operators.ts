// The query's operators: "quoted phrases" every result contains and -excluded words none does, in
// websearch_to_tsquery syntax. They hold for every result whichever channel found it: the text
// channel applies them in its own statements (operatorsCte, passesOperators), and chunks only the
// vector channel found are checked afterwards (requireOperators). Plain words never become a
// filter: AND semantics collapses recall (SciFact nDCG@10 0.690 → 0.070).
import type { Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';
import type { Fragment } from './conditions.js';
import type { Fused } from './fusion.js';
import { segmentQuery } from '../text/segment.js';

// A quoted phrase (optionally negated, possibly unterminated) or a negated bare word. A '-'
// inside a word (covid-19, IL-6) is not an operator: it must follow start or whitespace.
const operatorPattern = /(?<=^|\s)-?"[^"]*(?:"|$)|(?<=^|\s)-[^\s"]+/g;

/** The query without its operator parts: the plain words, which rank (and which typo tolerance may correct). */
export function plainWords(query: string): string {
  return query.replace(operatorPattern, ' ');
}

/** The operator part of a query ('' when it has none); BM25 ranks all of its words (OR). */
export function operatorFilter(query: string): string {
  const parts = query.match(operatorPattern) ?? [];
  return parts
    .map((p) => p.trim())
    .filter((p) => /[\p{L}\p{N}]/u.test(p))
    .join(' ');
}

/** The query's operators as written: the phrases every result holds, and the words or phrases none holds (no quotes, no '-'). */
export function operatorParts(query: string): { required: string[]; excluded: string[] } {
  const required: string[] = [];
  const excluded: string[] = [];
  for (const part of query.match(operatorPattern) ?? []) {
    const body = part.trim().replace(/^-/, '').replace(/"/g, '').trim().replace(/\s+/g, ' ');
    if (/[\p{L}\p{N}]/u.test(body)) (part.trim().startsWith('-') ? excluded : required).push(body);
  }
  return { required, excluded };
}

/** The query without its operators: a phrase's words as plain words, the excluded ones dropped (what its words alone find). */
export function withoutOperators(query: string): string {
  return query
    .replace(operatorPattern, (p) => (p.trim().startsWith('-') ? ' ' : ` ${p.replace(/"/g, '')} `))
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The operator part as typed, and as segmented (text/segment.ts) for the collections of languages
 * written without spaces: docsift_tsquery(config, typed, segmented) parses the one its config needs.
 * Undefined when the query has no operator.
 */
export interface Operators {
  typed: string;
  segmented: string;
}

export function queryOperators(query: string): Operators | undefined {
  const typed = operatorFilter(query);
  return typed ? { typed, segmented: operatorFilter(segmentQuery(query)) } : undefined;
}

/**
 * `fq` (after `ids`), followed by a comma: the operators parsed once per searched collection, in
 * its language (collections.text_config, else `textConfig`), as the collection's chunks were indexed.
 */
export function operatorsCte(tx: Tx, textConfig: string, operators: Operators): Fragment {
  return tx`fq as materialized (select id, docsift_tsquery(coalesce(text_config, ${textConfig}), ${operators.typed}, ${operators.segmented}) as tq from collections where id = any((select a from ids)::uuid[])),`;
}

/** The operators (CTE `fq`) hold for chunk `c`. */
export function passesOperators(tx: Tx): Fragment {
  return tx`and exists (select 1 from fq where fq.id = c.collection_id and c.tsv @@ fq.tq)`;
}

/** Checks the chunks only the vector channel found against the operators, in one statement. */
export async function requireOperators(
  run: <T>(fn: (sql: Tx) => Promise<T>) => Promise<T>,
  opts: { textConfig: string; timeoutMs: number },
  query: string,
  list: Fused[],
): Promise<{ kept: Fused[]; excluded: number }> {
  const operators = queryOperators(query);
  const unchecked = operators ? list.filter((c) => !c.text).map((c) => c.chunkId) : [];
  if (!unchecked.length) return { kept: list, excluded: 0 };
  const rows = await run((sql) =>
    withinTimeout(
      sql<{ id: string }[]>`
      select c.id from chunks c
        join collections col on col.id = c.collection_id
        cross join lateral (select docsift_tsquery(coalesce(col.text_config, ${opts.textConfig}), ${operators!.typed}, ${operators!.segmented}) as q) q
       where c.id = any(string_to_array(${unchecked.join(',')}, ',')::uuid[])
         -- An operator part of stop words only (e.g. -the) has no lexeme and excludes nothing.
         and (numnode(q.q) = 0 or c.tsv @@ q.q)`,
      opts.timeoutMs,
    ),
  );
  const ok = new Set(rows.map((r) => r.id));
  const kept = list.filter((c) => c.text || ok.has(c.chunkId));
  return { kept, excluded: list.length - kept.length };
}
