// Search result snippets from the API's `highlights` (UTF-16 offsets into `content`, as JavaScript
// strings index): the passage around the first matched span, every span in it marked, whitespace
// collapsed. The server decides what matches (stemmed, segmented, typo-corrected), never the CLI.

export interface Span {
  start: number;
  end: number;
}

export interface Snippet {
  text: string;
  /** [start, end) offsets of matches within text. */
  matches: [number, number][];
}

/** At most `width` characters of `content` around its first span, with the spans inside it. */
export function snippet(content: string, spans: readonly Span[], width = 240): Snippet {
  const first = spans[0];
  let start = first && first.start > width / 3 ? first.start - Math.floor(width / 3) : 0;
  if (start > 0) {
    const space = content.slice(start, first!.start).search(/\s/);
    if (space >= 0) start += space + 1;
  }
  const end = Math.min(content.length, start + width);
  let text = '';
  const matches: [number, number][] = [];
  let at = start;
  const plain = (s: string) => s.replace(/\s+/g, ' ');
  for (const h of spans) {
    if (h.end <= start || h.start >= end) continue;
    const a = Math.max(h.start, start);
    const b = Math.min(h.end, end);
    text += plain(content.slice(at, a));
    matches.push([text.length, text.length + plain(content.slice(a, b)).length]);
    text += plain(content.slice(a, b));
    at = b;
  }
  text += plain(content.slice(at, end));
  // A cut word at the end goes; the ellipses say where the passage was cut.
  if (end < content.length) {
    const cut = text.replace(/\s+\S*$/, '');
    if (cut.length && matches.every(([, b]) => b <= cut.length)) text = cut;
    text += ' …';
  }
  const lead = text.length - text.trimStart().length;
  const out = start > 0 ? `… ${text.trimStart()}` : text.trimStart();
  const shift = (start > 0 ? 2 : 0) - lead;
  return { text: out, matches: matches.map(([a, b]) => [a + shift, b + shift]) };
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
