/**
 * Word segmentation for the languages written without spaces between words (Chinese, Japanese,
 * Korean, Thai): the one rule the text index follows on both sides, for chunks at indexing and for
 * the query at search, in collections whose configuration is segmented (migration 122,
 * `text_config_segmented()`). PostgreSQL's parser cannot split "维多利亚州的经济" into words, so
 * the text reaches to_tsvector() and websearch_to_tsquery() already segmented, with spaces; the
 * chunk's `content` stays the user's text.
 *
 * What a segmented text holds (measured on xquad-r-zh, text nDCG@10 through the API in
 * docs/performance.md, "Languages written without spaces"):
 * - the **stream**: the text in order, every Han, kana and Hangul character a word of its own,
 *   words of the other scripts whole (ICU words for Thai, Lao, Khmer, Myanmar; Latin, digits and the
 *   rest untouched, so mixed text keeps "iPhone", "covid-19" and "cells/ml" as PostgreSQL parses
 *   them). Phrases and exclusions match it: "维多利亚州" is the characters 维 <-> 多 <-> 利 <-> 亚 <-> 州,
 *   found wherever that string occurs, whatever the segmentation of its context;
 * - then, after a gap no phrase spans, the **words**: ICU's dictionary words of the Han, kana and
 *   Hangul runs (维多利亚, 州, 经济), which rank a whole word above its characters scattered.
 *
 * ICU's word dictionaries follow the script, not the locale ('zh', 'ja', 'th' and 'ko' split every
 * text alike), so one segmenter serves every segmented language.
 */
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/** Scripts written without spaces between words (Script_Extensions, so ー and 々 belong). */
const NO_SPACE = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]/u;
/** Scripts whose characters each carry meaning (ideographs, kana, Hangul syllables): indexed one by one too. */
const CHARACTER = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;
const CHARACTERS = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/gu;
/**
 * Words as the chunker counts them: runs of non-space characters, every Han, kana and Hangul
 * character a word of its own (embedding tokenizers spend about one token on each, where "words"
 * of those scripts run a whole clause long). Text of other scripts counts as /\S+/ does.
 */
export function wordPattern(text: string): RegExp {
  // /\S+/ is three times faster on text of other scripts (2.8 MB of SciFact chunked in 80 ms, not 237).
  return CHARACTER.test(text)
    ? /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]|[^\s\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]+/gu
    : /\S+/g;
}

export function countWords(text: string): number {
  return text.match(wordPattern(text))?.length ?? 0;
}

/** Whether a character is one of the Han, kana and Hangul characters that stand for a word each. */
export function isWordCharacter(c: string): boolean {
  return CHARACTER.test(c);
}

/** Punctuation and symbols outside ASCII: blanks to PostgreSQL's parser under a UTF-8 locale, letters under C; made spaces. */
const OTHER_SYMBOLS = /^[^\s\p{ASCII}]+$/u;

/**
 * The lexeme between the stream and the words: `docsift_tsvector()` deletes it (ts_delete), which
 * leaves one free position, so no phrase can match across the two sections.
 */
export const SECTION_GAP = 'docsiftsectiongap';

/** Whether a text (or a query word) has characters of a script written without spaces. */
export function hasSegmentedScript(text: string): boolean {
  return NO_SPACE.test(text);
}

interface Segmented {
  /** The stream, with `sep` around every word it split out. */
  stream: string;
  /** ICU's words of the Han, kana and Hangul runs, in order. */
  words: string[];
}

/**
 * `sep` is inserted around the words split out; nothing else changes unless `blankSymbols`, which
 * makes non-ASCII punctuation spaces (for the parser; a highlight keeps the text as it is).
 */
function segment(text: string, sep: string, blankSymbols: boolean): Segmented {
  let stream = '';
  const words: string[] = [];
  for (const { segment: s, isWordLike } of segmenter.segment(text)) {
    if (isWordLike && CHARACTER.test(s)) {
      stream += sep + s.replace(CHARACTERS, (c) => c + sep);
      words.push(s);
    } else if (isWordLike && NO_SPACE.test(s)) stream += sep + s + sep;
    else stream += blankSymbols && OTHER_SYMBOLS.test(s) ? ' ' : s;
  }
  return { stream, words };
}

/**
 * What `docsift_tsvector()` parses for a chunk of a segmented collection: the stream, the gap and
 * the words. A text of spaced scripts only comes back unchanged.
 */
export function segmentForIndex(text: string): string {
  if (!NO_SPACE.test(text)) return text;
  const { stream, words } = segment(text, ' ', true);
  return words.length ? `${stream} ${SECTION_GAP} ${words.join(' ')}` : stream;
}

/** websearch_to_tsquery's operators: a quoted phrase (possibly unterminated), else a whitespace-separated term. */
const QUERY_PARTS = /-?"[^"]*(?:"|$)|[^\s"]+/g;

/**
 * The query as `docsift_tsquery()` parses it for a segmented collection, in websearch syntax: every
 * term and phrase as the stream (so a phrase or an excluded word matches where its characters
 * occur in that order), with the words of what is not excluded appended to rank. An excluded term
 * that becomes several words is quoted, so it excludes the phrase: `-经济` is `-"经 济"`.
 * A query of spaced scripts only comes back unchanged.
 */
export function segmentQuery(query: string): string {
  if (!NO_SPACE.test(query)) return query;
  const parts: string[] = [];
  const ranked: string[] = [];
  for (const [part] of query.matchAll(QUERY_PARTS)) {
    const negated = part.startsWith('-');
    const body = negated ? part.slice(1) : part;
    const quoted = body.startsWith('"');
    const inner = quoted ? body.slice(1).replace(/"$/, '') : body;
    const { stream, words } = segment(inner, ' ', true);
    const tokens = stream.split(/\s+/).filter(Boolean);
    if (!negated) ranked.push(...words);
    if (quoted || (negated && tokens.length > 1)) parts.push(`${negated ? '-' : ''}"${tokens.join(' ')}"`);
    else parts.push(`${negated ? '-' : ''}${tokens.join(' ')}`);
  }
  return [...parts, ...ranked].join(' ');
}

/** The separator a highlighted text carries around the words split out: a blank to the parser, removed afterwards. */
export const HIGHLIGHT_SEP = '\u001f';

/** A chunk's text as ts_headline marks it in a segmented collection: the stream with HIGHLIGHT_SEP, the rest as written. */
export function segmentForHighlight(text: string): string {
  const clean = text.replaceAll(HIGHLIGHT_SEP, ' ');
  return NO_SPACE.test(clean) ? segment(clean, HIGHLIGHT_SEP, false).stream : clean;
}

/**
 * What a highlight marks in a segmented collection, in websearch syntax joined by `or`: each word
 * of the query that is not excluded, a run of Han, kana or Hangul characters as the phrase of its
 * characters, and the words ICU finds in it too (so 服务业 marks 服务业 where it occurs whole, and
 * 服务 elsewhere; not every 服). Single characters are marked only when the query has nothing
 * longer; they are everywhere in these scripts.
 */
export function highlightQuery(query: string): string {
  const kept = query.replace(/(?<=^|\s)-("[^"]*(?:"|$)|[^\s"]+)/g, ' ').replaceAll('"', ' ');
  const phrases = new Set<string>();
  const chars = (s: string) => `"${[...s.matchAll(CHARACTERS)].map((m) => m[0]).join(' ')}"`;
  let run = '';
  const flush = () => {
    if (run) phrases.add(chars(run));
    run = '';
  };
  for (const { segment: s, isWordLike } of segmenter.segment(kept)) {
    if (isWordLike && CHARACTER.test(s)) {
      run += s;
      phrases.add(chars(s));
      continue;
    }
    flush();
    if (isWordLike) phrases.add(s);
  }
  flush();
  const long = [...phrases].filter((p) => !/^"\S+"$/.test(p));
  return (long.length ? long : [...phrases]).join(' or ');
}
