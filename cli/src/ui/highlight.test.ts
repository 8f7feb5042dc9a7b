import assert from 'node:assert/strict';
import { test } from 'node:test';
import { queryTerms, renderSnippet, snippet } from './highlight.js';

test('query terms drop stop words, quotes and excluded words; long words become stems', () => {
  assert.deepEqual(queryTerms('how are "vector embeddings" indexed -draft'), ['embeddi', 'vector', 'index']);
});

test('the snippet centres on the first match and marks every match', () => {
  const content = 'Intro text. '.repeat(40) + 'Embeddings are indexed with HNSW; the index stores embedding vectors.';
  const s = snippet(content, 'embedding index', 120);
  assert.ok(s.text.startsWith('… '), s.text);
  assert.match(s.text, /Embeddings are indexed/);
  const marked = renderSnippet(s, (t) => `[${t}]`);
  assert.match(marked, /\[Embeddings\] are \[indexed\] with HNSW; the \[index\] stores \[embedding\]/);
});

test('without matches the snippet is the start of the text', () => {
  const s = snippet('alpha beta gamma', 'zeta');
  assert.equal(s.text, 'alpha beta gamma');
  assert.deepEqual(s.matches, []);
});
