// A result's `highlights`: the spans of its `content` that match the query, as offsets in UTF-16
// code units (JavaScript string indices: `content.slice(start, end)` is the matched text), `end`
// exclusive, sorted and never overlapping. Computed once per result page, for REST, MCP, the CLI
// and the web UI alike.
//
// A word of the content is marked when its lexemes, under its collection's text search
// configuration (the one its chunk was indexed with), meet the query's lexemes that are not
// excluded, or the extra lexemes a caller adds (a typo-corrected word's, only in the collections it
// was corrected in): so "running" marks "runs" in an English collection, exactly when search treats
// them alike. Words of scripts written without spaces (Han, kana, Hangul, Thai, …; text/segment.ts)
// are marked where the query's runs of those scripts, or the words ICU finds in them, occur
// literally; single characters only when the query has nothing longer (they are everywhere in
// these scripts).
import type { Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';
import { rememberBounded } from './bounded-memory.js';
import { withoutOperators } from './operators.js';
import { hasSegmentedScript, segmentQuery } from '../text/segment.js';

export interface Span {
  start: number;
  end: number;
}

const SEGMENTED_SCRIPTS = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}`;
/** A letter, mark or digit outside the scripts written without spaces. */
const LETTER = String.raw`(?:(?![${SEGMENTED_SCRIPTS}])[\p{L}\p{M}\p{N}])`;
/** Words: such letters, joined by one . - ' ’ (covid-19, 3.14, don't), as PostgreSQL's parser keeps them whole. */
const WORD = new RegExp(String.raw`${LETTER}+(?:[.\-'’]${LETTER}+)*`, 'gu');
const SEGMENTED_RUN = new RegExp(`[${SEGMENTED_SCRIPTS}]+`, 'gu');
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/** The literal strings of scripts written without spaces that mark: the query's runs (not excluded) and ICU's words of them. */
export function segmentedNeedles(query: string): string[] {
  const found = new Set<string>();
  for (const [run] of withoutOperators(query).matchAll(SEGMENTED_RUN)) {
    found.add(run);
    for (const { segment, isWordLike } of segmenter.segment(run)) if (isWordLike) found.add(segment);
  }
  const all = [...found];
  const long = all.filter((s) => [...s].length > 1);
  return long.length ? long : all;
}

/** Spans sorted by start, overlapping or touching ones merged. */
export function mergeSpans(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** The spans of `content` that match: its words whose lower-case form is in `words`, and the needles' occurrences. */
export function spansIn(content: string, words: ReadonlySet<string>, needles: readonly string[]): Span[] {
  const spans: Span[] = [];
  if (words.size)
    for (const m of content.matchAll(WORD)) if (words.has(m[0].toLowerCase())) spans.push({ start: m.index, end: m.index + m[0].length });
  for (const needle of needles)
    for (let at = content.indexOf(needle); at !== -1; at = content.indexOf(needle, at + needle.length))
      spans.push({ start: at, end: at + needle.length });
  return mergeSpans(spans);
}

/** The distinct lower-case words of the contents (the ones a lexeme could come from). */
export function contentWords(contents: readonly string[]): string[] {
  const words = new Set<string>();
  for (const c of contents) for (const [w] of c.matchAll(WORD)) words.add(w.toLowerCase());
  return [...words];
}

export interface HighlightInput {
  chunkId: string;
  content: string;
  /** Its collection's text search configuration (null: the default), when the caller has read it (hydrate.ts): no statement reads it again. */
  textConfig?: string | null;
  /** Its collection's number (collections.no), when the caller has read it: which extra lexemes apply. */
  collectionNo?: number;
}

/** A lexeme marked besides the query's own (a typo correction's), in the collections numbered `nos` only. */
export interface ExtraLexeme {
  lexeme: string;
  nos: readonly number[];
}

/**
 * Two memories of to_tsvector's and docsift_tsquery's answers, which depend on nothing but the
 * configuration (whose dictionaries do not change while the daemon runs), so an entry never goes
 * stale; each drops its oldest tenth when full:
 * - lexemes of a word, per configuration: cfg → (word → lexemes), at most LEXEME_CACHE words each
 *   (about 10 MB). A result page holds up to about 1,000 distinct words, and lexizing 1,500 took
 *   2–11 ms in PostgreSQL at load 16: the memory leaves that to words not seen before. Keyed by the
 *   word alone within its configuration, a page's lookups build no string: highlights take 0.56 ms of
 *   the daemon's CPU per search at 1M chunks, 0.92 with a joined key per word (`kept.ts --cpu-prof`);
 * - the query's lexemes that mark (not excluded): (cfg, query) → lexemes, at most QUERY_CACHE
 *   entries (about 2 MB), so a repeated query with a warm page runs no statement at all.
 */
const lexemeCache = new Map<string, Map<string, string[]>>();
const LEXEME_CACHE = 100_000;
const queryCache = new Map<string, string[]>();
const QUERY_CACHE = 10_000;
const cacheKey = (cfg: string, text: string) => `${cfg}\u0000${text}`;

function wordsOf(cfg: string): Map<string, string[]> {
  let words = lexemeCache.get(cfg);
  if (!words) lexemeCache.set(cfg, (words = new Map()));
  return words;
}

/** A word's lexemes under a configuration (undefined: not lexized). */
type Lexemes = (cfg: string, word: string) => string[] | undefined;

/**
 * The lexemes of each word under each configuration: from lexemeCache, the others lexized in one
 * statement (none when all are cached). What this page needs is kept aside when the words it adds
 * would push older ones out of the memory.
 */
async function lexize(tx: Tx, cfgs: readonly string[], words: readonly string[], timeoutMs: number): Promise<Lexemes> {
  const missing: [string, string][] = [];
  const page = new Map<string, Map<string, string[]>>();
  for (const cfg of cfgs) {
    const known = wordsOf(cfg);
    const before = missing.length;
    for (const w of words) if (!known.has(w)) missing.push([cfg, w]);
    if (missing.length > before && known.size + missing.length - before >= LEXEME_CACHE) {
      const kept = new Map<string, string[]>();
      for (const w of words) {
        const hit = known.get(w);
        if (hit) kept.set(w, hit);
      }
      page.set(cfg, kept);
    }
  }
  if (missing.length) {
    const rows = await withinTimeout(
      tx<{ cfg: string; word: string; lexemes: string[] }[]>`
      select m.cfg, m.word, tsvector_to_array(to_tsvector(m.cfg::regconfig, m.word)) as lexemes
        from unnest(${missing.map((m) => m[0])}::text[], ${missing.map((m) => m[1])}::text[]) as m(cfg, word)`,
      timeoutMs,
    );
    for (const r of rows) {
      page.get(r.cfg)?.set(r.word, r.lexemes);
      rememberBounded(wordsOf(r.cfg), LEXEME_CACHE, r.word, r.lexemes);
    }
  }
  return (cfg, word) => (page.get(cfg) ?? lexemeCache.get(cfg))?.get(word);
}

/**
 * The query's lexemes that mark, per configuration of `cfgs` (a select of one `cfg` column), as
 * the text channel parses the query (docsift_tsquery), excluded ones left out.
 */
function markingLexemes(tx: Tx, query: string, cfgs: ReturnType<Tx>) {
  return tx`
    select k.cfg, array(
             select replace(m[2], '''''', '''')
               from regexp_matches(querytree(docsift_tsquery(k.cfg, ${query}, ${segmentQuery(query)})), '(!?)''((?:[^'']|'''')*)''', 'g') as m
              where m[1] = '') as lexemes
      from (${cfgs}) k`;
}

/**
 * The chunks' configurations, and their marking lexemes in queryCache. Read in one statement with
 * the chunks' collections, unless the caller read each chunk's configuration (hydrate.ts): then
 * only the configurations the query was not parsed with before are asked about, none when all were.
 */
async function chunkConfigs(
  tx: Tx,
  opts: { textConfig: string; timeoutMs: number },
  query: string,
  chunks: readonly HighlightInput[],
): Promise<{ cfgOf: Map<string, string>; noOf: Map<string, number>; marking: Map<string, string[]> }> {
  const marking = new Map<string, string[]>();
  const learn = (r: { cfg: string; lexemes: string[] }) => {
    if (marking.has(r.cfg)) return;
    marking.set(r.cfg, r.lexemes);
    rememberBounded(queryCache, QUERY_CACHE, cacheKey(r.cfg, query), r.lexemes);
  };
  if (chunks.every((c) => c.textConfig !== undefined)) {
    const cfgOf = new Map(chunks.map((c) => [c.chunkId, c.textConfig ?? opts.textConfig]));
    const noOf = new Map(chunks.flatMap((c) => (c.collectionNo === undefined ? [] : [[c.chunkId, c.collectionNo] as const])));
    const missing: string[] = [];
    for (const cfg of new Set(cfgOf.values())) {
      const hit = queryCache.get(cacheKey(cfg, query));
      if (hit) marking.set(cfg, hit);
      else missing.push(cfg);
    }
    if (missing.length) {
      const rows = await withinTimeout(
        tx<{ cfg: string; lexemes: string[] }[]>`${markingLexemes(tx, query, tx`select unnest(${missing}::text[]) as cfg`)}`,
        opts.timeoutMs,
      );
      rows.forEach(learn);
    }
    return { cfgOf, noOf, marking };
  }
  const rows = await withinTimeout(
    tx<{ id: string; no: number; cfg: string; lexemes: string[] }[]>`
    with h as materialized (
      select c.id, col.no, coalesce(col.text_config, ${opts.textConfig}) as cfg
        from unnest(${chunks.map((c) => c.chunkId)}::uuid[]) as f(id)
        join chunks c on c.id = f.id
        join collections col on col.id = c.collection_id
    ), q as materialized (${markingLexemes(tx, query, tx`select distinct cfg from h`)})
    select h.id, h.no, h.cfg, q.lexemes from h join q on q.cfg = h.cfg`,
    opts.timeoutMs,
  );
  rows.forEach(learn);
  return { cfgOf: new Map(rows.map((r) => [r.id, r.cfg])), noOf: new Map(rows.map((r) => [r.id, r.no])), marking };
}

/**
 * Each chunk's spans. The chunks' configurations (their collections', else `textConfig`) and the
 * query's lexemes under each (chunkConfigs: at most one statement), and one more only for the
 * page's words not lexized before under that configuration (lexemeCache): a repeated query over a
 * page of words seen before runs none. `extraLexemes` (typo corrections' lexemes) are marked too, in
 * the chunks of the collections they were found in: another language may stem a word to the same
 * lexeme where the query was not corrected.
 */
export async function highlightSpans(
  tx: Tx,
  opts: { textConfig: string; timeoutMs: number },
  query: string,
  chunks: readonly HighlightInput[],
  extraLexemes: readonly ExtraLexeme[] = [],
): Promise<Map<string, Span[]>> {
  const out = new Map<string, Span[]>();
  if (!chunks.length) return out;
  const needles = hasSegmentedScript(query) ? segmentedNeedles(query) : [];
  const words = contentWords(chunks.map((c) => c.content));
  const { cfgOf, noOf, marking } = words.length
    ? await chunkConfigs(tx, opts, query, chunks)
    : { cfgOf: new Map<string, string>(), noOf: new Map<string, number>(), marking: new Map<string, string[]>() };
  const lexemes = await lexize(tx, [...marking.keys()], words, opts.timeoutMs);
  // The page's words that mark, per configuration and set of extra lexemes in force.
  const matched = new Map<string, Set<string>>();
  const marked = (cfg: string, extra: readonly string[]) => {
    const key = [cfg, ...extra].join('\u0000');
    let found = matched.get(key);
    if (!found) {
      const wanted = new Set([...(marking.get(cfg) ?? []), ...extra]);
      found = new Set(wanted.size ? words.filter((w) => lexemes(cfg, w)?.some((l) => wanted.has(l))) : []);
      matched.set(key, found);
    }
    return found;
  };
  for (const c of chunks) {
    const cfg = cfgOf.get(c.chunkId);
    const no = noOf.get(c.chunkId);
    const extra = no === undefined ? [] : extraLexemes.filter((e) => e.nos.includes(no)).map((e) => e.lexeme);
    out.set(c.chunkId, spansIn(c.content, cfg !== undefined && marking.has(cfg) ? marked(cfg, extra) : new Set(), needles));
  }
  return out;
}
