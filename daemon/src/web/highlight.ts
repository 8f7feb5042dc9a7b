import type { AppDeps } from '../types.js';
import { truncate } from './format.js';

// Control characters as highlight markers: they never occur in extracted chunk text, and the
// passage is split on them into plain and marked segments that JSX escapes like any text.
const START = '\u0002';
const STOP = '\u0003';
const OPTIONS = `StartSel="${START}", StopSel="${STOP}", MaxFragments=2, MaxWords=28, MinWords=10, FragmentDelimiter=" … "`;

export interface Segment {
  text: string;
  mark: boolean;
}

/**
 * The passage of each chunk that best matches the query, with the query's words marked, by
 * PostgreSQL's ts_headline over the same text search configuration (the chunk's collection's) and
 * query parsing as the text channel (so "indexes" marks "indexing" exactly when search treats them alike). Words are OR-ed:
 * a chunk matching only some of them still shows those; negated words are never marked.
 * Chunks without a matching word (vector-only hits) get their opening instead.
 */
export async function highlightPassages(
  deps: AppDeps,
  query: string,
  chunks: { chunk_id: string; content: string }[],
): Promise<Map<string, Segment[]>> {
  const out = new Map<string, Segment[]>();
  if (!chunks.length) return out;
  // Each chunk with its collection's configuration (collections/language.ts), the query parsed per chunk: a page's few results.
  const rows = await deps.sql<{ id: string; passage: string }[]>`
    select c.id, ts_headline(k.cfg::regconfig, c.content, q.tsq, ${OPTIONS}) as passage
      from chunks c
      join collections co on co.id = c.collection_id
     cross join lateral (select coalesce(co.text_config, ${deps.config.TEXT_SEARCH_CONFIG}) as cfg) k
     cross join lateral (
       select string_agg(m[2], ' | ')::tsquery as tsq
         from regexp_matches(querytree(docsift_tsquery(k.cfg, ${query})), '(!?)(''(?:[^'']|'''')*'')', 'g') as m
        where m[1] = ''
     ) q
     where c.id = any(${chunks.map((c) => c.chunk_id)}::uuid[]) and q.tsq is not null`;
  const byId = new Map(rows.map((r) => [r.id, r.passage]));
  for (const c of chunks) {
    const passage = byId.get(c.chunk_id);
    out.set(
      c.chunk_id,
      passage?.includes(START) ? segments(passage) : [{ text: truncate(c.content.replace(/\s+/g, ' ').trim(), 320), mark: false }],
    );
  }
  return out;
}

function segments(passage: string): Segment[] {
  const out: Segment[] = [];
  for (const [i, part] of passage.replace(/\s+/g, ' ').split(START).entries()) {
    if (i === 0) {
      if (part) out.push({ text: part, mark: false });
      continue;
    }
    const [marked = '', rest = ''] = part.split(STOP);
    if (marked) out.push({ text: marked, mark: true });
    if (rest) out.push({ text: rest, mark: false });
  }
  return out;
}
