import type { Tx } from '../db/client.js';
import type { Correction } from './typo-tolerance.js';

/** Private-use code points around the word ts_headline marks (they never occur in extracted text). */
const MARK = ['\ue000', '\ue001'] as const;

/**
 * How each correction is written in the searched text: the word ts_headline marks for its lexeme in
 * the chunk at the head of one of its lists (a searched collection's). Falls back to the lexeme when
 * that chunk is gone (its posting not yet folded away).
 */
export async function surfaceForms(tx: Tx, textConfig: string, corrections: readonly Correction[]): Promise<Map<string, string>> {
  if (!corrections.length) return new Map();
  const wanted = [...new Map(corrections.map((c) => [c.to, { lexeme: c.to, nos: c.nos }])).values()];
  const rows = await tx<{ lexeme: string; word: string | null }[]>`
    select e.lexeme,
           substring(ts_headline(coalesce(h.text_config, ${textConfig})::regconfig, h.content, quote_literal(e.lexeme)::tsquery,
                                 ${`StartSel=${MARK[0]}, StopSel=${MARK[1]}, MaxWords=3, MinWords=1, ShortWord=0, MaxFragments=1`})
                     from ${`${MARK[0]}([^${MARK[1]}]+)${MARK[1]}`}) as word
      from jsonb_to_recordset(${tx.json(wanted as never)}::jsonb) as e(lexeme text, nos int[])
      left join lateral (
        select c.content, col.text_config
          from (select b.postings[1] as p from text_lists b
                 where b.lexeme = e.lexeme and b.coll = any(e.nos) and b.df > 0
                 order by b.max_impact desc limit 3) b
          join chunks c on c.no = (b.p >> 32)::int
          join collections col on col.id = c.collection_id
         limit 1
      ) h on true`;
  return new Map(rows.map((r) => [r.lexeme, r.word?.toLowerCase() ?? r.lexeme]));
}

/** The query as read: each corrected word replaced by how its correction is written, keeping the writer's capital. */
export function correctedQuery(query: string, corrections: readonly Correction[], surface: ReadonlyMap<string, string>): string {
  let out = query;
  for (const c of corrections) {
    const to = surface.get(c.to) ?? c.to;
    const cased = c.word[0] && c.word[0] !== c.word[0].toLowerCase() ? to[0]!.toUpperCase() + to.slice(1) : to;
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(c.word)}(?![\\p{L}\\p{N}])`, 'gu'), cased);
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What the answer shows: the query as read, and each corrected word with its first reading (as the searched text writes it). */
export function shownCorrection(query: string, corrections: readonly Correction[], surface: ReadonlyMap<string, string>) {
  const first = corrections.filter((c, i) => corrections.findIndex((x) => x.word === c.word) === i);
  return {
    query: correctedQuery(query, first, surface),
    words: first.map((c) => ({ word: c.word, correction: surface.get(c.to) ?? c.to, edits: c.edits })),
  };
}
