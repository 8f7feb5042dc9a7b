// Query-term highlighting for search results: picks the passage around the first match and marks
// every match. Terms match word prefixes, so "index" also marks "indexed" (the search is stemmed).

const STOP = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'how',
  'in',
  'is',
  'it',
  'of',
  'on',
  'or',
  'the',
  'to',
  'what',
  'with',
]);

export function queryTerms(query: string): string[] {
  const terms = query
    .replace(/"/g, ' ')
    .split(/\s+/)
    .filter((t) => t && !t.startsWith('-'))
    .map((t) => t.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase())
    .filter((t) => t.length > 1 && !STOP.has(t));
  // Longest first so the regex prefers whole longer terms; a stem of 5+ letters catches inflections.
  return [...new Set(terms.map((t) => (t.length > 6 ? t.slice(0, Math.max(5, t.length - 3)) : t)))].sort((a, b) => b.length - a.length);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface Snippet {
  text: string;
  /** [start, end) offsets of matches within text. */
  matches: [number, number][];
}

export function snippet(content: string, query: string, width = 240): Snippet {
  const text = content.replace(/\s+/g, ' ').trim();
  const terms = queryTerms(query);
  const re = terms.length ? new RegExp(`(?<![\\p{L}\\p{N}])(${terms.map(escapeRegExp).join('|')})[\\p{L}\\p{N}]*`, 'giu') : null;
  const first = re ? text.search(re) : -1;
  let start = first > width / 3 ? first - Math.floor(width / 3) : 0;
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space > 0 && space < first) start = space + 1;
  }
  let out = text.slice(start, start + width);
  if (start + width < text.length) out = out.replace(/\s+\S*$/, '') + ' …';
  if (start > 0) out = '… ' + out;
  const matches: [number, number][] = [];
  if (re) for (const m of out.matchAll(re)) matches.push([m.index!, m.index! + m[0].length]);
  return { text: out, matches };
}

export function renderSnippet(s: Snippet, mark: (t: string) => string): string {
  let out = '';
  let at = 0;
  for (const [a, b] of s.matches) {
    out += s.text.slice(at, a) + mark(s.text.slice(a, b));
    at = b;
  }
  return out + s.text.slice(at);
}
