import { HIGHLIGHT_SEP, hasSegmentedScript, highlightQuery, segmentForHighlight } from '../text/segment.js';
import type { AppDeps } from '../types.js';
import { truncate } from './format.js';

// Control characters as highlight markers: they never occur in extracted chunk text, and the
// passage is split on them into plain and marked segments that JSX escapes like any text.
const START = '\u0002';
const STOP = '\u0003';
const OPTIONS = `StartSel="${START}", StopSel="${STOP}", MaxFragments=2, MaxWords=28, MinWords=10, FragmentDelimiter=" … "`;
// A segmented chunk's "words" are mostly single characters (text/segment.ts): a passage of about the
// same length counts more of them, and none is dropped as short (ShortWord counts bytes: one
// character is 3, which the default drops from a fragment's ends until nothing but the match is left).
const SEGMENTED_OPTIONS = `StartSel="${START}", StopSel="${STOP}", MaxFragments=2, MaxWords=64, MinWords=24, ShortWord=0, FragmentDelimiter=" … "`;

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
  // A segmented collection's chunk is marked in its segmented form (text/segment.ts) with the query's words as phrases.
  const rows = await deps.sql<{ id: string; passage: string; segmented: boolean }[]>`
    select c.id,
           case when k.segmented then ts_headline(k.cfg::regconfig, coalesce(h.text, c.content), q.tsq, ${SEGMENTED_OPTIONS})
                else ts_headline(k.cfg::regconfig, c.content, q.tsq, ${OPTIONS}) end as passage,
           k.segmented
      from chunks c
      join collections co on co.id = c.collection_id
      left join unnest(${chunks.map((c) => c.chunk_id)}::uuid[], ${chunks.map((c) => (hasSegmentedScript(c.content) ? segmentForHighlight(c.content) : null))}::text[]) as h(id, text)
        on h.id = c.id
     cross join lateral (select coalesce(co.text_config, ${deps.config.TEXT_SEARCH_CONFIG}) as cfg) k0
     cross join lateral (select k0.cfg, text_config_segmented(k0.cfg) as segmented) k
     cross join lateral (
       select case when k.segmented then docsift_tsquery(k.cfg, ${highlightQuery(query)}) else string_agg(m[2], ' | ')::tsquery end as tsq
         from regexp_matches(querytree(docsift_tsquery(k.cfg, ${query})), '(!?)(''(?:[^'']|'''')*'')', 'g') as m
        where m[1] = ''
     ) q
     where c.id = any(${chunks.map((c) => c.chunk_id)}::uuid[]) and q.tsq is not null`;
  const byId = new Map(rows.map((r) => [r.id, r.segmented ? joinSegmented(r.passage) : r.passage]));
  for (const c of chunks) {
    const passage = byId.get(c.chunk_id);
    out.set(
      c.chunk_id,
      passage?.includes(START) ? segments(passage) : [{ text: truncate(c.content.replace(/\s+/g, ' ').trim(), 320), mark: false }],
    );
  }
  return out;
}

/** A passage marked in segmented form: the separators gone, the marks of one phrase's characters one mark. */
function joinSegmented(passage: string): string {
  return passage.replaceAll(HIGHLIGHT_SEP, '').replaceAll(STOP + START, '');
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
