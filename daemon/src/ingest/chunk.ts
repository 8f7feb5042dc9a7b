// Splits extracted text into ~512-token chunks with ~15% overlap for embedding and BM25.
//
// Token estimate: max(words × 1.3, chars / 4). No tokenizer ships with the daemon, and either
// rule alone undercounts some text (long identifiers/URLs for the word rule, short-word prose
// for the char rule); taking the larger keeps chunks inside an embedding model's window. Every
// Han, kana and Hangul character is a word (text/segment.ts wordPattern()): about 390 of them to a
// 512-token chunk, where chars / 4 let a Chinese chunk run to 2,048.
//
// The text is first cut into atomic pieces (heading lines, sentences, or line fragments), each
// tagged with how strong the boundary before it is. Chunks are packed greedily from pieces and,
// when one overflows, cut at the strongest boundary in its second half. Pieces never split a word
// unless a single word is longer than the whole budget. The result depends only on the input.
import { countWords, wordPattern } from '../text/segment.js';
import { segmentText, Level, type Piece } from './segment.js';

export interface ChunkPage {
  page: number;
  start: number;
  end: number;
}

export interface ChunkOptions {
  /** target maximum tokens per chunk (default 512) */
  targetTokens?: number;
  /** share of the target repeated from the previous chunk when a section is split (default 0.15) */
  overlapRatio?: number;
  /** page spans (character offsets into text) from extraction */
  pages?: ChunkPage[];
}

export interface Chunk {
  content: string;
  chunkIndex: number;
  /** page of the chunk (chunks never cross pages), when pages were given */
  page: number | null;
  tokenCount: number;
  /** character offsets of content within the chunked text */
  start: number;
  end: number;
}

export function estimateTokens(text: string): number {
  const words = countWords(text);
  return tokensFor(words, text.length);
}

function tokensFor(words: number, chars: number): number {
  return Math.ceil(Math.max(words * 1.3, chars / 4));
}

/** Smallest share of the budget a chunk must reach before a guessed title may close it. */
const TITLE_MIN_SHARE = 0.25;
/** A size cut looks for a good boundary only within the chunk's second half. */
const CUT_MIN_SHARE = 0.5;

export function chunkText(text: string, opts: ChunkOptions = {}): Chunk[] {
  const pages = opts.pages?.filter((p) => p.end > p.start) ?? [];
  if (pages.length < 2) return chunkSpan(text, opts);
  // A chunk never spans two pages, so its page number holds for all of its text (citations).
  const out: Chunk[] = [];
  for (const p of pages) {
    for (const c of chunkSpan(text.slice(p.start, p.end), { ...opts, pages: undefined })) {
      out.push({ ...c, chunkIndex: out.length, page: p.page, start: c.start + p.start, end: c.end + p.start });
    }
  }
  return out;
}

function chunkSpan(text: string, opts: ChunkOptions): Chunk[] {
  const target = Math.max(16, Math.floor(opts.targetTokens ?? 512));
  const overlapTokens = Math.floor(target * Math.min(Math.max(opts.overlapRatio ?? 0.15, 0), 0.5));
  const pieces = segmentText(text, target);
  const ranges: { start: number; end: number }[] = [];

  let first = 0; // index of the piece holding the chunk start
  let start = pieces[0]?.start ?? 0;
  while (first < pieces.length) {
    const cumWords: number[] = []; // cumWords[k] = words in the chunk through piece first+k
    let wordSum = 0;
    let onlyHeadings = true;
    let reason: 'end' | 'heading' | 'size' = 'end';
    let j = first;
    for (; j < pieces.length; j++) {
      const p = pieces[j] as Piece;
      const isHeading = p.level >= Level.Title;
      if (j > first && isHeading && !onlyHeadings) {
        const soFar = tokensFor(wordSum, (pieces[j - 1] as Piece).end - start);
        if (p.level === Level.Heading || soFar >= target * TITLE_MIN_SHARE) {
          reason = 'heading';
          break;
        }
      }
      const pieceWords = j === first ? countWords(text.slice(start, p.end)) : p.words;
      if (j > first && tokensFor(wordSum + pieceWords, p.end - start) > target) {
        reason = 'size';
        break;
      }
      wordSum += pieceWords;
      cumWords.push(wordSum);
      if (!isHeading) onlyHeadings = false;
    }
    const endIdx = reason === 'size' ? bestCut(pieces, first, j, start, cumWords, target) : j;
    ranges.push({ start, end: (pieces[endIdx - 1] as Piece).end });
    if (endIdx >= pieces.length) break;
    const next = pieces[endIdx] as Piece;
    // Overlap only bridges a cut made for size; a new section starts clean.
    start =
      reason === 'size' && next.level < Level.Title ? overlapStart(pieces, text, first, start, endIdx, overlapTokens, target) : next.start;
    first = pieceIndexAt(pieces, start, first);
  }

  return ranges.map((r, chunkIndex) => {
    const content = text.slice(r.start, r.end);
    return { content, chunkIndex, page: pageAt(opts.pages, r.start), tokenCount: estimateTokens(content), start: r.start, end: r.end };
  });
}

/** Exclusive end index of the best place to close an overflowing chunk of pieces first..j-1. */
function bestCut(pieces: Piece[], first: number, j: number, start: number, cumWords: number[], target: number): number {
  let best = j;
  let bestLevel = -Infinity;
  for (let k = first + 1; k <= j; k++) {
    const tokens = tokensFor(cumWords[k - 1 - first] ?? 0, (pieces[k - 1] as Piece).end - start);
    if (tokens < target * CUT_MIN_SHARE) continue;
    const level = (pieces[k] as Piece | undefined)?.level ?? Level.Heading;
    if (level >= bestLevel) {
      bestLevel = level; // ties go to the later boundary, giving fuller chunks
      best = k;
    }
  }
  return best;
}

/**
 * Start offset of the next chunk so that it repeats about overlapTokens of the previous one:
 * whole trailing pieces where they fit, otherwise the trailing words of the last piece.
 */
function overlapStart(
  pieces: Piece[],
  text: string,
  first: number,
  chunkStart: number,
  endIdx: number,
  overlapTokens: number,
  target: number,
): number {
  const next = pieces[endIdx] as Piece;
  const end = (pieces[endIdx - 1] as Piece).end;
  if (overlapTokens <= 0) return next.start;
  let candidate = -1;
  for (let k = endIdx - 1; k > first; k--) {
    const p = pieces[k] as Piece;
    if (estimateTokens(text.slice(p.start, end)) > overlapTokens) break;
    candidate = p.start;
    if (p.level >= Level.Title) break; // a heading may lead the overlap, but nothing before it
  }
  if (candidate < 0) {
    const last = pieces[endIdx - 1] as Piece;
    const from = Math.max(last.start, chunkStart);
    const seg = text.slice(from, end);
    const starts: number[] = [];
    const re = wordPattern(seg);
    for (let m = re.exec(seg); m; m = re.exec(seg)) starts.push(from + m.index);
    // Tokens shrink as the start moves right: binary-search the earliest start that fits.
    let lo = 1; // starts[0] would repeat the whole piece
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (estimateTokens(text.slice(starts[mid] as number, end)) <= overlapTokens) hi = mid;
      else lo = mid + 1;
    }
    if (lo < starts.length) candidate = starts[lo] as number;
  }
  if (candidate < 0 || candidate <= chunkStart) return next.start;
  // The repeated text plus the next piece must still fit, or the chunk would make no progress.
  if (estimateTokens(text.slice(candidate, next.end)) > target) return next.start;
  return candidate;
}

function pieceIndexAt(pieces: Piece[], offset: number, from: number): number {
  let i = from;
  while (i < pieces.length && (pieces[i] as Piece).end <= offset) i++;
  return i;
}

function pageAt(pages: ChunkPage[] | undefined, offset: number): number | null {
  if (!pages || pages.length === 0) return null;
  let found: number | null = null;
  for (const p of pages) {
    if (offset >= p.start && offset < p.end) return p.page;
    if (p.start <= offset) found = p.page;
  }
  return found ?? pages[0]?.page ?? null;
}
