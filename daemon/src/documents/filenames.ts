// A stored document's file name: the part's file name as sent, a relative path kept whole.

/** Longest relative path kept (characters, after normalizing); a longer one is refused, never cut. */
export const MAX_FILENAME_LENGTH = 1024;

/**
 * A part's file name as stored in original_filename. A relative path is kept (`guide/intro.md`):
 * `docs sync` identifies documents by it. Separators become `/`; empty and `.` segments, a drive
 * letter and `..` (resolved, never above the top) are dropped, so the name never points outside.
 */
export function documentFilename(raw: string): string {
  const parts: string[] = [];
  const segments = raw.replace(/\\/g, '/').split('/');
  if (/^[A-Za-z]:$/.test(segments[0] ?? '')) segments.shift();
  for (const seg of segments) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/') || 'upload';
}

/** The last segment of a stored file name: titles and download names. */
export const baseFilename = (name: string) => name.slice(name.lastIndexOf('/') + 1);
