import type { Tx } from '../db/client.js';
import { operatorFilter, plainWords } from './operators.js';

/**
 * Typo tolerance for the text channel. A plain query word (not in "quotes", not a -exclusion) whose
 * lexeme the searched collections' lists do not hold is read as a lexeme they do hold within 1 edit
 * (words of 5–8 letters) or 2 edits (9 letters or more); a word of 4 letters only as one a letter
 * longer ("fuit": fruit), so the longer of the two words always has 5 letters or more (Algolia
 * corrects every 4-letter word, Meilisearch none; a substitution among 4-letter words mostly makes
 * another word). An edit is an insertion, deletion,
 * substitution or swap of two neighbouring letters, counted on words, so stemming composes:
 * - 1 edit: some word one edit from the query word has that lexeme. Every such word is spelled out
 *   (about 50 per letter) and stemmed with the collection's configuration in one to_tsvector, so
 *   "mortalioy" finds mortal through "mortality", whatever the typo did to the suffix;
 * - 2 edits: a lexeme of the collections' lists that begins with the word's lexeme's first 3 letters,
 *   within 2 edits of that lexeme, or within 1 of the lexeme of a word one edit away.
 * The nearest wins, then the one more chunks hold, then the first in byte order; it ranks as a query
 * word of weight CORRECTION_WEIGHT (below an exact match of the same word), and the answer shows it.
 *
 * Never corrected: a word one edit from a stop word (it is most likely that stop word, which no
 * index holds: "sould"), a word in a script written without spaces (CJK, Thai…: UNSPACED_SCRIPTS;
 * their words come from a segmenter, not from the writer), and no word into a lexeme the query
 * excludes (-word). Only lexemes with postings in the searched collections count (sum(df) > 0 over
 * their lists, parsed with the configuration of those collections), so a word is never corrected
 * toward one only other collections (another tenant's) hold.
 */

/**
 * Weight of a corrected word against an exact one (its BM25 term is multiplied by it). Text nDCG@10
 * in-process (`bench:quality -- --typo-study`): 0.75 keeps SciFact's clean claims within 0.002 of
 * no correction (0.8: 0.0031 below) at 99.4 % on its misspellings; NFCorpus's misspellings 0.3159
 * (0.8: 0.3173, of 0.3321 spelled right). docs/performance.md, "Typo tolerance".
 */
export const CORRECTION_WEIGHT = 0.75;
/** Readings kept per unknown word, among those at the fewest edits. */
export const READINGS = 1;
/** Shortest word corrected by any edit (letters); a word one letter shorter only by an insertion. */
export const MIN_LETTERS = 5;
/** Shortest word looked up (letters): MIN_LETTERS less the one an insertion adds. */
export const SHORTEST_WORD = MIN_LETTERS - 1;
const SHORTEST = new RegExp(`\\p{L}{${SHORTEST_WORD}}`, 'u');
/** Whether the query's plain words (operators.ts plainWords) hold one long enough to look up: without, no statement runs. */
export const hasWordToLookUp = (plain: string): boolean => SHORTEST.test(plain);
/** Words of this many letters or more may be 2 edits off. */
export const TWO_EDIT_LETTERS = 9;
/**
 * Longest word corrected, and most words corrected per query: a word has about 53 per letter words
 * one edit away, each as long as itself, and all of them are stemmed (40 letters: 2,100 of 40 bytes).
 */
export const MAX_LETTERS = 40;
export const MAX_WORDS = 8;
/** Letters a 2-edit candidate shares with the word's lexeme at its start: its lists are read by that range. */
export const PREFIX = 3;

/**
 * Scripts written without spaces between words: Thai, Lao, Myanmar, Hangul Jamo, Khmer, CJK (Han,
 * Hiragana, Katakana and their symbols), Hangul and the half-width forms. A token holding any of them
 * is a segmenter's word and never corrected.
 */
export const UNSPACED_SCRIPTS =
  '[\\u0e00-\\u0eff\\u1000-\\u109f\\u1100-\\u11ff\\u1780-\\u17ff\\u2e80-\\u9fff\\ua960-\\ua97f\\uac00-\\ud7ff\\uf900-\\ufaff\\uff65-\\uffdc]';
const unspaced = new RegExp(UNSPACED_SCRIPTS, 'u');

/** Edits a word may be off by: 0 (never corrected), 1 or 2. */
export function allowedEdits(word: string): 0 | 1 | 2 {
  if (!/^\p{L}+$/u.test(word) || unspaced.test(word)) return 0;
  const letters = [...word].length;
  if (letters > MAX_LETTERS) return 0;
  return letters >= TWO_EDIT_LETTERS ? 2 : letters >= SHORTEST_WORD ? 1 : 0;
}

/**
 * Every word one edit from `word` (lower case): deletions, swaps, and substitutions and insertions of
 * a–z or its own letters; only the insertions for a word shorter than MIN_LETTERS.
 */
export function oneEditAway(word: string): string[] {
  const a = [...word.toLowerCase()];
  const letters = [...new Set([...'abcdefghijklmnopqrstuvwxyz', ...a])];
  const out = new Set<string>();
  const at = (i: number, mid: string[], skip: number) => [...a.slice(0, i), ...mid, ...a.slice(i + skip)].join('');
  if (a.length >= MIN_LETTERS)
    for (let i = 0; i < a.length; i++) {
      out.add(at(i, [], 1));
      if (i + 1 < a.length) out.add(at(i, [a[i + 1]!, a[i]!], 2));
      for (const c of letters) if (c !== a[i]) out.add(at(i, [c], 1));
    }
  for (let i = 0; i <= a.length; i++) for (const c of letters) out.add(at(i, [c], 0));
  out.delete(a.join(''));
  return [...out];
}

/** One corrected word: as written, its lexeme, and the vocabulary lexeme it is read as. */
export interface Correction {
  word: string;
  from: string;
  to: string;
  edits: number;
  /** Chunks holding `to` in the searched collections of the configuration that produced it. */
  df: number;
  /** Numbers (collections.no) of the searched collections the lexeme was looked up in. */
  nos: number[];
}

/** A lexeme added to the text channel's query, with the collections it is looked up in and its weight. */
export interface ExtraTerm {
  lexeme: string;
  nos: number[];
  weight: number;
  /** The query's own lexeme it stands in for (which no searched chunk holds). */
  replaces: string;
}

interface Unknown {
  cfg: string;
  nos: number[];
  word: string;
  lexeme: string;
}

/** A plain query word of SHORTEST_WORD letters or more under one configuration: its lexeme (null for a stop word or several) and whether the lists hold it. */
export interface QueryWord {
  cfg: string;
  nos: number[];
  word: string;
  lexeme: string | null;
  known: boolean;
}

/**
 * The corrections of the query's unknown plain words in the searched collections (one per word and
 * configuration). The plain words are parsed with each configuration among the collections
 * (ts_debug keeps each word with its lexeme) and looked up in those collections' lists; only when
 * one is missing do the candidates' statements run.
 */
export async function findCorrections(
  tx: Tx,
  textConfig: string,
  query: string,
  collectionIds: readonly string[],
  readings = READINGS,
): Promise<Correction[]> {
  return correctWords(tx, query, await queryWords(tx, textConfig, query, collectionIds), readings);
}

/** The plain words of SHORTEST_WORD letters or more, per configuration among the collections, looked up in their lists (one statement; none without such a word). */
export async function queryWords(tx: Tx, textConfig: string, query: string, collectionIds: readonly string[]): Promise<QueryWord[]> {
  const plain = plainWords(query);
  if (!hasWordToLookUp(plain) || !collectionIds.length) return [];
  return tx<QueryWord[]>`
      with ids as materialized (select string_to_array(${collectionIds.join(',')}, ',')::uuid[] as a),
      lg as materialized (
        select coalesce(text_config, ${textConfig}) as cfg, array_agg(no) as nos
          from collections where id = any((select a from ids)::uuid[]) group by 1
      ),
      -- Plain words of four letters or more with their lexeme (stop words have none).
      w as materialized (
        select distinct lg.cfg, lg.nos, d.token as word, case when cardinality(d.lexemes) = 1 then d.lexemes[1] end as lexeme
          from lg cross join lateral ts_debug(lg.cfg::regconfig, text_search_input(lg.cfg, ${plain})) d
         where d.alias in ('asciiword', 'word', 'hword_asciipart', 'hword_part')
           and char_length(d.token) >= ${SHORTEST_WORD}
      )
      select w.cfg, w.nos, w.word, w.lexeme,
             w.lexeme is not null and (select coalesce(sum(l.df), 0) from text_lists l where l.lexeme = w.lexeme and l.coll = any(w.nos)) > 0 as known
        from w`;
}

/** The corrections of the words the lists do not hold (queryWords), by the candidates' statements. */
export async function correctWords(tx: Tx, query: string, words: readonly QueryWord[], readings = READINGS): Promise<Correction[]> {
  const unknown = words
    .filter((w): w is QueryWord & { lexeme: string } => w.lexeme !== null && !w.known && allowedEdits(w.word) > 0)
    .slice(0, MAX_WORDS)
    .map(({ cfg, nos, word, lexeme }) => ({ cfg, nos, word, lexeme }));
  if (!unknown.length) return [];
  const excluded = await excludedLexemes(tx, query, unknown);
  const near = pickNearest(await oneEditCandidates(tx, unknown), excluded, readings);
  const far = unknown.filter((u) => allowedEdits(u.word) === 2 && !near.some((c) => c.word === u.word && sameNos(c.nos, u.nos)));
  return far.length ? [...near, ...pickNearest(await twoEditCandidates(tx, far), excluded, readings)] : near;
}

const sameNos = (a: readonly number[], b: readonly number[]) => a.join(',') === b.join(',');

interface Candidate {
  word: string;
  nos: number[];
  from: string;
  to: string;
  edits: number;
  df: number;
}

/**
 * Lexemes one edit away, in the searched collections: every word one edit from the query word,
 * stemmed in one tsvector (variant i at position i), and the lexemes the collections hold among
 * them. A word with a variant that is a stop word (its position left empty) is never corrected.
 */
async function oneEditCandidates(tx: Tx, unknown: readonly Unknown[]): Promise<Candidate[]> {
  const words = unknown.map((u) => {
    const variants = oneEditAway(u.word);
    return { ...u, variants: variants.join(' '), n: variants.length };
  });
  return tx<Candidate[]>`
    with u as materialized (
      select * from jsonb_to_recordset(${tx.json(words as never)}::jsonb) as u(cfg text, nos int[], word text, lexeme text, variants text, n int)
    ),
    v as materialized (
      select u.word, u.nos, u.lexeme as "from", x.lexeme as "to", x.positions
        from u cross join lateral unnest(docsift_tsvector(u.cfg, u.variants)) x
    ),
    stop as (
      select u.word, u.nos from u
       where (select count(distinct p) from v cross join unnest(v.positions) p where v.word = u.word and v.nos = u.nos) < u.n
    )
    select v.word, v.nos, v."from", v."to", 1 as edits, d.df::float8 as df
      from v cross join lateral (select coalesce(sum(l.df), 0) as df from text_lists l where l.lexeme = v."to" and l.coll = any(v.nos)) d
     where d.df > 0 and not exists (select 1 from stop where stop.word = v.word and stop.nos = v.nos)`;
}

/**
 * Lexemes two edits away, in the searched collections: those of their lists (both tables, by the
 * (lexeme, coll) indexes' range) that begin with the word's first PREFIX letters, within 2 edits of
 * its lexeme or 1 of the lexeme of a word one edit away (fuzzystrmatch's bounded Levenshtein). The
 * lists are the vocabulary: nothing else is stored, and an edit among the first letters is missed.
 */
async function twoEditCandidates(tx: Tx, far: readonly Unknown[]): Promise<Candidate[]> {
  const words = far.map((u) => {
    const prefix = [...u.lexeme].slice(0, PREFIX).join('');
    return { ...u, variants: oneEditAway(u.word).join(' '), lo: prefix, hi: `${prefix}\u{10ffff}` };
  });
  return tx<Candidate[]>`
    with u as materialized (
      select * from jsonb_to_recordset(${tx.json(words as never)}::jsonb) as u(cfg text, nos int[], word text, lexeme text, variants text, lo text, hi text)
    ),
    v as materialized (
      select distinct u.word, x.lexeme from u cross join lateral unnest(docsift_tsvector(u.cfg, u.variants)) x
    ),
    s as materialized (
      select distinct u.word, u.nos, u.lexeme as "from", c.lexeme as "to"
        from u cross join lateral (
          select b.lexeme from text_blocks b where b.lexeme >= u.lo and b.lexeme < u.hi and b.coll = any(u.nos) and b.df > 0
          union
          select f.lexeme from text_fresh f where f.lexeme >= u.lo and f.lexeme < u.hi and f.coll = any(u.nos) and f.df > 0
        ) c
       where abs(char_length(c.lexeme) - char_length(u.lexeme)) <= 2
         and (levenshtein_less_equal(u.lexeme, c.lexeme, 2) <= 2
              or exists (select 1 from v where v.word = u.word and abs(char_length(v.lexeme) - char_length(c.lexeme)) <= 1
                                             and levenshtein_less_equal(v.lexeme, c.lexeme, 1) <= 1))
    )
    select s.word, s.nos, s."from", s."to", 2 as edits, d.df::float8 as df
      from s cross join lateral (select coalesce(sum(l.df), 0) as df from text_lists l where l.lexeme = s."to" and l.coll = any(s.nos)) d
     where d.df > 0`;
}

/** Lexemes the query excludes (-word), in any of the configurations: never a correction. */
async function excludedLexemes(tx: Tx, query: string, unknown: readonly Unknown[]): Promise<Set<string>> {
  const operators = operatorFilter(query);
  if (!operators) return new Set();
  const cfgs = [...new Set(unknown.map((u) => u.cfg))];
  const rows = await tx<{ lexeme: string }[]>`
    select replace(m[1], '''''', '''') as lexeme
      from unnest(${cfgs}::text[]) as c(cfg)
     cross join lateral regexp_matches(docsift_tsquery(c.cfg, ${operators})::text, '!''((?:[^'']|'''')*)''', 'g') m`;
  return new Set(rows.map((r) => r.lexeme));
}

/**
 * Per word and configuration, the readings at the fewest edits, most chunks first (then byte order),
 * at most `readings` of them; never an excluded lexeme. The first is the one the answer shows.
 */
export function pickNearest(rows: readonly Candidate[], excluded: ReadonlySet<string> = new Set(), readings = READINGS): Correction[] {
  const byWord = new Map<string, Correction[]>();
  for (const r of rows) {
    if (r.to === r.from || excluded.has(r.to)) continue;
    const key = `${r.word}\u0000${r.nos.join(',')}`;
    const list = byWord.get(key) ?? [];
    list.push({ word: r.word, from: r.from, to: r.to, edits: r.edits, df: Number(r.df), nos: r.nos });
    byWord.set(key, list);
  }
  return [...byWord.values()].flatMap((list) => {
    list.sort((a, b) => a.edits - b.edits || b.df - a.df || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
    return list.filter((c) => c.edits === list[0]!.edits).slice(0, readings);
  });
}

/** The corrections as extra query terms for the text channel. */
export function correctionTerms(corrections: readonly Correction[], weight = CORRECTION_WEIGHT): ExtraTerm[] {
  return corrections.map((c) => ({ lexeme: c.to, nos: c.nos, weight, replaces: c.from }));
}
