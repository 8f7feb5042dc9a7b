// Cuts text into the atomic pieces the chunker packs: heading lines, sentences, and (only for
// over-long sentences) word runs. Each piece records how strong the boundary before it is.
import { countWords, isWordCharacter, wordPattern } from '../text/segment.js';

export const Level = {
  /** inside a word longer than the whole budget */
  HardSplit: -1,
  /** between words of an over-long sentence */
  Word: 0,
  /** line break in the middle of a sentence (wrapped PDF lines) */
  Wrap: 1,
  /** sentence end inside a line */
  Sentence: 2,
  /** line break after a finished sentence */
  Line: 3,
  /** blank line */
  Paragraph: 4,
  /** a line that looks like a title (short, capitalised, unpunctuated, standing alone) */
  Title: 5,
  /** a markdown "#" heading */
  Heading: 6,
} as const;
export type Level = (typeof Level)[keyof typeof Level];

export interface Piece {
  start: number;
  end: number;
  level: Level;
  words: number;
}

const MD_HEADING = /^#{1,6}\s+\S/;
const TERMINAL = /[.!?:;…。！？)"'”’\]]$/;
// A sentence ends at . ! ? (plus closing quotes/brackets) followed by whitespace.
const SENTENCE_ENDERS = new Set(['.', '!', '?', '…', '。', '！', '？']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']']);

// Chinese and Japanese end a sentence at 。！？ with no space after it.
const FULL_WIDTH_ENDERS = new Set(['。', '！', '？']);
const FULL_WIDTH_CLOSERS = new Set(['」', '』', '）', '》', '〉', '】', '”', '’']);
const FULL_WIDTH_OPENERS = new Set(['「', '『', '（', '《', '〈', '【', '“', '‘']);

const tokensFor = (words: number, chars: number) => Math.ceil(Math.max(words * 1.3, chars / 4));

/** Short, capitalised, unpunctuated, not a list item or table row. */
function titleShaped(line: string): boolean {
  if (line.length > 80 || !/\p{L}/u.test(line)) return false;
  if (!/^[\p{Lu}\p{N}]/u.test(line)) return false;
  if (/[.,;:!?\-–—]$/.test(line) || /\s\|\s|\t/.test(line)) return false;
  return countWords(line) <= 10;
}

interface Line {
  start: number;
  end: number;
  text: string;
}

function splitLines(text: string): (Line | null)[] {
  const out: (Line | null)[] = [];
  let pos = 0;
  for (const raw of text.split('\n')) {
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    out.push(trimmed === '' ? null : { start: pos + lead, end: pos + lead + trimmed.length, text: trimmed });
    pos += raw.length + 1;
  }
  return out;
}

export function segmentText(text: string, target: number): Piece[] {
  const pieces: Piece[] = [];
  const lines = splitLines(text);
  let blankBefore = true;
  let prev: { text: string; heading: boolean } | null = null;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) {
      blankBefore = true;
      continue;
    }
    let level: Level;
    if (blankBefore) level = Level.Paragraph;
    else if (prev && (prev.heading || TERMINAL.test(prev.text))) level = Level.Line;
    else level = Level.Wrap;

    const words = countWords(line.text);
    const fits = tokensFor(words, line.text.length) <= target;
    let heading = false;
    if (fits && MD_HEADING.test(line.text)) {
      pieces.push({ start: line.start, end: line.end, level: Level.Heading, words });
      heading = true;
    } else if (fits && isTitle(line, lines, i, prev, blankBefore)) {
      pieces.push({ start: line.start, end: line.end, level: Level.Title, words });
      heading = true;
    } else {
      pushSentences(text, line, level, target, pieces);
    }
    prev = { text: line.text, heading };
    blankBefore = false;
  }
  return pieces;
}

function isTitle(
  line: Line,
  lines: (Line | null)[],
  i: number,
  prev: { text: string; heading: boolean } | null,
  blankBefore: boolean,
): boolean {
  if (!titleShaped(line.text)) return false;
  // A wrapped continuation of the previous sentence is not a title.
  if (!blankBefore && prev && !prev.heading && !TERMINAL.test(prev.text)) return false;
  let next: Line | null = null;
  for (let k = i + 1; k < lines.length && !next; k++) next = lines[k] ?? null;
  // Titles introduce body text; a run of short lines is a list, and a last line introduces nothing.
  return next !== null && !titleShaped(next.text) && !MD_HEADING.test(next.text);
}

/**
 * Offsets where sentences start: after whitespace that follows a terminal mark (plus closing
 * quotes/brackets) and precedes more text. Scans from each whitespace run backwards, so every
 * character is looked at a bounded number of times. The equivalent regular expression
 * /[.!?…]+["')\]]*\s+(?=\S)/g backtracks through a run of marks once per mark: quadratic, and
 * hours for a megabyte of "." with no space.
 */
export function sentenceStarts(s: string): number[] {
  const starts = [0];
  const space = /\s+/g;
  for (let m = space.exec(s); m; m = space.exec(s)) {
    const after = m.index + m[0].length;
    if (after >= s.length) break; // trailing space: no sentence follows
    let k = m.index - 1;
    while (k >= 0 && CLOSERS.has(s.charAt(k))) k--; // closers stop at the previous whitespace run
    if (k >= 0 && SENTENCE_ENDERS.has(s.charAt(k))) starts.push(after);
  }
  const unspaced = unspacedSentenceStarts(s);
  return unspaced.length ? [...new Set([...starts, ...unspaced])].sort((a, b) => a - b) : starts;
}

/**
 * Sentence starts of text written without spaces: after a run of 。！？ and closing brackets or
 * quotes, where a Han, kana or Hangul character or an opening bracket follows. One pass.
 */
function unspacedSentenceStarts(s: string): number[] {
  const starts: number[] = [];
  if (!/[。！？]/.test(s)) return starts;
  for (let i = 0; i < s.length; i++) {
    if (!FULL_WIDTH_ENDERS.has(s.charAt(i))) continue;
    let k = i + 1;
    while (k < s.length && (FULL_WIDTH_ENDERS.has(s.charAt(k)) || FULL_WIDTH_CLOSERS.has(s.charAt(k)) || CLOSERS.has(s.charAt(k)))) k++;
    const next = s.charAt(k);
    if (k < s.length && (FULL_WIDTH_OPENERS.has(next) || isWordCharacter(next))) starts.push(k);
    i = k - 1;
  }
  return starts;
}

function pushSentences(text: string, line: Line, level: Level, target: number, out: Piece[]): void {
  const starts = sentenceStarts(line.text);
  starts.forEach((s, idx) => {
    const e = idx + 1 < starts.length ? (starts[idx + 1] as number) : line.text.length;
    const sentence = line.text.slice(s, e).trimEnd();
    const start = line.start + s;
    const lvl = idx === 0 ? level : Level.Sentence;
    const words = countWords(sentence);
    if (tokensFor(words, sentence.length) <= target) out.push({ start, end: start + sentence.length, level: lvl, words });
    else pushWordRuns(text, start, start + sentence.length, lvl, target, out);
  });
}

/** Greedy runs of whole words within the budget; a lone giant word is cut every target*4 chars. */
function pushWordRuns(text: string, from: number, to: number, level: Level, target: number, out: Piece[]): void {
  const segment = text.slice(from, to);
  const re = wordPattern(segment);
  let runStart = -1;
  let runEnd = -1;
  let runWords = 0;
  let lvl = level;
  const flush = () => {
    if (runStart < 0) return;
    out.push({ start: runStart, end: runEnd, level: lvl, words: runWords });
    lvl = Level.Word;
    runStart = -1;
    runWords = 0;
  };
  for (let m = re.exec(segment); m; m = re.exec(segment)) {
    const ws = from + m.index;
    const we = ws + m[0].length;
    if (tokensFor(1, we - ws) > target) {
      flush();
      hardSplit(text, ws, we, lvl, target, out);
      lvl = Level.Word;
      continue;
    }
    if (runStart >= 0 && tokensFor(runWords + 1, we - runStart) > target) flush();
    if (runStart < 0) runStart = ws;
    runEnd = we;
    runWords++;
  }
  flush();
}

function hardSplit(text: string, from: number, to: number, level: Level, target: number, out: Piece[]): void {
  const max = target * 4;
  let s = from;
  let lvl = level;
  while (s < to) {
    let e = Math.min(s + max, to);
    // Do not cut a surrogate pair in half.
    if (e < to && /[\uDC00-\uDFFF]/.test(text.charAt(e))) e--;
    out.push({ start: s, end: e, level: lvl, words: 1 });
    lvl = Level.HardSplit;
    s = e;
  }
}
