import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderSnippet, snippet } from './highlight.js';

const spansOf = (content: string, words: string[]) =>
  words.flatMap((w) => [...content.matchAll(new RegExp(w, 'g'))].map((m) => ({ start: m.index, end: m.index + w.length })));

test('the snippet centres on the first span and marks every span the server sent', () => {
  const content = 'Intro text. '.repeat(40) + 'Embeddings are indexed with HNSW; the index stores embedding vectors.';
  const spans = spansOf(content, ['Embeddings', 'indexed', 'index ', 'embedding ']).sort((a, b) => a.start - b.start);
  const s = snippet(content, spans, 120);
  assert.ok(s.text.startsWith('… '), s.text);
  assert.match(s.text, /Embeddings are indexed/);
  const marked = renderSnippet(s, (t) => `[${t}]`);
  assert.match(marked, /\[Embeddings\] are \[indexed\] with HNSW; the \[index \]stores \[embedding \]/);
});

test('offsets are UTF-16 code units, and collapsed whitespace keeps the marks on their words', () => {
  const content = '🎉  runs\n\nfast — ran';
  const s = snippet(content, [
    { start: 4, end: 8 },
    { start: 17, end: 20 },
  ]);
  assert.equal(
    renderSnippet(s, (t) => `[${t}]`),
    '🎉 [runs] fast — [ran]',
  );
});

test('without spans the snippet is the start of the text', () => {
  const s = snippet('alpha beta gamma', []);
  assert.equal(s.text, 'alpha beta gamma');
  assert.deepEqual(s.matches, []);
});
