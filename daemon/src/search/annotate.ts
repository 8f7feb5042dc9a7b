// What a search answer carries beside its ranked results, computed after ranking from what it
// produced: each result's `highlights` (highlights.ts) and, when asked, `facets` (facets.ts).
import type { Tx } from '../db/client.js';
import type { Conditions } from './conditions.js';
import { candidateDocuments, countFacets, type Facets } from './facets.js';
import type { Fused } from './fusion.js';
import { type ExtraLexeme, highlightSpans, type Span } from './highlights.js';
import type { Hit } from './hydrate.js';

export interface Annotations {
  spans: Map<string, Span[]>;
  facets?: Facets;
}

export interface AnnotateInput {
  query: string;
  textConfig: string;
  /** The results returned (after limit). */
  page: readonly Hit[];
  /** Every ranked candidate (before limit): the documents facets count over. */
  ranked: readonly Fused[];
  facets?: readonly string[];
  /** Lexemes marked besides the query's own (typo corrections), each in its collections. */
  extraLexemes?: readonly ExtraLexeme[];
}

/** Highlights and facets, their two statements in parallel (each on its own connection). */
export async function annotate(run: <T>(fn: (sql: Tx) => Promise<T>) => Promise<T>, c: Conditions, x: AnnotateInput): Promise<Annotations> {
  const opts = { textConfig: x.textConfig, timeoutMs: c.timeoutMs };
  const [spans, facets] = await Promise.all([
    run((sql) => highlightSpans(sql, opts, x.query, x.page, x.extraLexemes)),
    x.facets
      ? run((sql) =>
          countFacets(
            sql,
            candidateDocuments(
              sql,
              x.ranked.map((r) => r.chunkId),
              c.passes,
            ),
            x.facets!,
            { timeoutMs: c.timeoutMs },
          ).then((f) => f.facets),
        )
      : undefined,
  ]);
  return { spans, facets };
}
