// Whitespace normalisation shared by every extractor, so chunk offsets and search snippets see
// one canonical form: no NULs or stray control bytes, single spaces, at most one blank line.

// C0 controls except tab/newline (handled below), DEL, and BOMs left inside the text.
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f\ufeff]/g;

export function normalizeWhitespace(input: string): string {
  return input
    .replace(CONTROL, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[\f\v\u2028\u2029]/g, '\n')
    .replace(/[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
