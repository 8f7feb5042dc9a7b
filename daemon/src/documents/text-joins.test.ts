import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkText } from '../ingest/chunk.js';
import { textJoins } from './text-joins.js';

/** The rebuild migration 080's chunks_text() does, on code points as SQL counts them. */
function rebuild(contents: string[], joins: number[]): string {
  return contents
    .map((c, i) => {
      if (i === 0) return c;
      const j = joins[i - 1]!;
      return j >= 0 ? [...c].slice(j).join('') : [' ', '\n', '\n\n'][-j - 1] + c;
    })
    .join('');
}

test('the chunker’s overlapping chunks of text with emoji and blank lines join back into it exactly', () => {
  const text = Array.from(
    { length: 40 },
    (_, i) => `${i % 10 === 0 ? `# Part ${i}\n\n` : ''}Sentence ${i} about 🌊 tides and harbour${i}.${i % 5 === 4 ? '\n\n' : ' '}`,
  )
    .join('')
    .trim();
  const chunks = chunkText(text, { targetTokens: 40, overlapRatio: 0.15 });
  assert.ok(chunks.length > 3);
  const joins = textJoins(text, chunks);
  assert.ok(joins);
  const parsed = JSON.parse(`[${joins.slice(1, -1)}]`) as number[];
  assert.ok(parsed.some((j) => j > 0) && parsed.some((j) => j < 0), `overlaps and gaps: ${joins}`);
  assert.equal(
    rebuild(
      chunks.map((c) => c.content),
      parsed,
    ),
    text,
  );
  assert.equal(textJoins('one chunk', [{ start: 0, end: 9 }]), '{}');
});

test('chunks that do not cover the text, or are separated by anything but one space or one or two newlines: null', () => {
  assert.equal(textJoins('abc def', []), null);
  assert.equal(textJoins(' abc', [{ start: 1, end: 4 }]), null, 'text before the first chunk');
  assert.equal(textJoins('abc ', [{ start: 0, end: 3 }]), null, 'text after the last chunk');
  assert.equal(
    textJoins('abc\t\tdef', [
      { start: 0, end: 3 },
      { start: 5, end: 8 },
    ]),
    null,
  );
  assert.equal(
    textJoins('abc\n\ndef', [
      { start: 0, end: 3 },
      { start: 5, end: 8 },
    ]),
    '{-3}',
  );
});
