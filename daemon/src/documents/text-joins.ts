import type { Chunk } from '../ingest/chunk.js';

const GAPS = [' ', '\n', '\n\n'];

/**
 * How `chunks` (the chunker's slices of `text`) join back into it, as the `text_joins` array
 * literal of migration 080: per chunk after the first, the characters (code points, as SQL counts
 * them) it repeats of the previous one, or -1/-2/-3 for a ' ', '\n' or '\n\n' between them. Null
 * when they do not cover the text that way; the writer also compares SQL's rebuild with the text.
 */
export function textJoins(text: string, chunks: Pick<Chunk, 'start' | 'end'>[]): string | null {
  const first = chunks[0];
  const last = chunks.at(-1);
  if (!first || !last || first.start !== 0 || last.end !== text.length) return null;
  const joins: number[] = [];
  for (let i = 1; i < chunks.length; i++) {
    const prev = chunks[i - 1]!;
    const cur = chunks[i]!;
    if (cur.start <= prev.end) {
      if (cur.start < prev.start) return null;
      joins.push([...text.slice(cur.start, prev.end)].length);
    } else {
      const gap = GAPS.indexOf(text.slice(prev.end, cur.start));
      if (gap < 0) return null;
      joins.push(-(gap + 1));
    }
  }
  return `{${joins.join(',')}}`;
}
