// A search result's passage for the page: the part of its content with the most matched spans
// (the API's `highlights`, search/highlights.ts), split into plain and marked segments that JSX
// escapes like any text. The page never decides what matches; the search did.
import type { Span } from '../search/highlights.js';
import { truncate } from './format.js';

export interface Segment {
  text: string;
  mark: boolean;
}

/** Characters of content a passage shows at most; context kept before its first span. */
const WIDTH = 320;
const LEAD = 60;

/** Where the passage starts: before the span that opens the window holding the most spans. */
function windowStart(spans: readonly Span[]): number {
  let best = 0;
  let bestCount = 0;
  for (const [i, s] of spans.entries()) {
    const from = Math.max(0, s.start - LEAD);
    let n = 0;
    for (let j = i; j < spans.length && spans[j]!.end <= from + WIDTH; j++) n++;
    if (n > bestCount) (best = from), (bestCount = n);
  }
  return best;
}

/** The passage of `content` around its spans; the opening of the text when none. */
export function passageSegments(content: string, spans: readonly Span[]): Segment[] {
  if (!spans.length) return [{ text: truncate(content.replace(/\s+/g, ' ').trim(), WIDTH), mark: false }];
  let start = windowStart(spans);
  // Begin and end on word boundaries, never inside a span.
  if (start > 0) {
    const space = content.slice(start, spans.find((s) => s.start >= start)?.start ?? start).search(/\s/);
    if (space >= 0) start += space + 1;
  }
  let end = Math.min(content.length, start + WIDTH);
  if (end < content.length) {
    const inside = spans.filter((s) => s.start < end);
    const last = Math.max(start, ...inside.map((s) => s.end));
    const space = content.slice(last, end).search(/\s\S*$/);
    end = Math.max(last, space >= 0 ? last + space : end);
  }
  const out: Segment[] = [];
  const push = (text: string, mark: boolean) => {
    const t = text.replace(/\s+/g, ' ');
    if (t) out.push({ text: t, mark });
  };
  if (start > 0) push('… ', false);
  let at = start;
  for (const s of spans) {
    if (s.start < start || s.start >= end) continue;
    push(content.slice(at, s.start), false);
    push(content.slice(s.start, Math.min(s.end, end)), true);
    at = Math.min(s.end, end);
  }
  push(content.slice(at, end), false);
  if (end < content.length) push(' …', false);
  const first = out[0]!;
  if (!first.mark) first.text = first.text.trimStart();
  const last = out.at(-1)!;
  if (!last.mark) last.text = last.text.trimEnd();
  return out;
}
