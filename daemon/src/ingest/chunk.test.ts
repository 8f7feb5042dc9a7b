import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PDF_PAGE2_PHRASE, samplePath } from '../../../test/fixtures/samples.js';
import { chunkText, estimateTokens, type Chunk } from './chunk.js';
import { extractText } from './extract.js';
import { sentenceStarts } from './segment.js';

// Deterministic pseudo-random prose so sizes are realistic but stable.
function prose(seed: number, sentences: number): string {
  const vocab = [
    'river',
    'stone',
    'lantern',
    'harbor',
    'meadow',
    'copper',
    'signal',
    'orchard',
    'vector',
    'index',
    'a',
    'of',
    'the',
    'and',
    'quietly',
  ];
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) {
    const words = Array.from({ length: 6 + Math.floor(next() * 14) }, () => vocab[Math.floor(next() * vocab.length)] as string);
    out.push(`${(words[0] as string).charAt(0).toUpperCase()}${(words[0] as string).slice(1)} ${words.slice(1).join(' ')}.`);
  }
  return out.join(' ');
}

const isWordChar = (c: string | undefined) => c !== undefined && /\S/.test(c);

function assertWholeWords(text: string, chunks: Chunk[]): void {
  for (const c of chunks) {
    assert.equal(text.slice(c.start, c.end), c.content);
    assert.ok(!isWordChar(text[c.start - 1]), `chunk ${c.chunkIndex} starts mid-word`);
    assert.ok(!isWordChar(text[c.end]), `chunk ${c.chunkIndex} ends mid-word`);
  }
}

test('empty text gives no chunks; short text gives one', () => {
  assert.deepEqual(chunkText(''), []);
  assert.deepEqual(chunkText(' \n\n '), []);
  const [only, ...rest] = chunkText('Hello world.');
  assert.equal(rest.length, 0);
  assert.deepEqual(only, { content: 'Hello world.', chunkIndex: 0, page: null, tokenCount: 3, start: 0, end: 12 });
});

test('token estimate is max(words*1.3, chars/4)', () => {
  assert.equal(estimateTokens('one two three four'), 6);
  assert.equal(estimateTokens('x'.repeat(100)), 25);
});

test('chunks stay within the budget, use most of it, and never split words', () => {
  const text = Array.from({ length: 12 }, (_, i) => prose(i + 1, 25)).join('\n\n');
  const chunks = chunkText(text);
  assert.ok(chunks.length > 5);
  chunks.forEach((c, i) => {
    assert.equal(c.chunkIndex, i);
    assert.ok(c.tokenCount <= 512, `chunk ${i} has ${c.tokenCount} tokens`);
    if (i < chunks.length - 1) assert.ok(c.tokenCount >= 256, `chunk ${i} only ${c.tokenCount} tokens`);
  });
  assertWholeWords(text, chunks);
  // Every non-space character of the text is covered by some chunk.
  let covered = 0;
  for (const c of chunks) covered = Math.max(covered, c.end);
  assert.equal(covered, text.trimEnd().length);
  for (let i = 1; i < chunks.length; i++) assert.ok((chunks[i] as Chunk).start <= (chunks[i - 1] as Chunk).end + 2);
});

test('consecutive chunks of one section overlap by about 15%', () => {
  const text = prose(7, 200); // one paragraph, no headings
  const chunks = chunkText(text, { targetTokens: 200, overlapRatio: 0.15 });
  assert.ok(chunks.length >= 4);
  for (let i = 1; i < chunks.length; i++) {
    const prev = chunks[i - 1] as Chunk;
    const cur = chunks[i] as Chunk;
    assert.ok(cur.start < prev.end, `chunk ${i} does not overlap`);
    const overlap = estimateTokens(text.slice(cur.start, prev.end));
    assert.ok(overlap > 0 && overlap <= 30, `overlap ${overlap}`);
    assert.ok(cur.end > prev.end, 'progress');
  }
  const none = chunkText(text, { targetTokens: 200, overlapRatio: 0 });
  for (let i = 1; i < none.length; i++) assert.ok((none[i] as Chunk).start >= (none[i - 1] as Chunk).end);
});

test('markdown headings start new chunks and are not repeated as overlap', () => {
  const text = `# Guide\n\n## Install\n\n${prose(1, 12)}\n\n## Configure\n\n${prose(2, 40)}\n\n## Run\n\n${prose(3, 5)}`;
  const chunks = chunkText(text);
  const starts = chunks.map((c) => c.content.split('\n')[0]);
  assert.equal(starts[0], '# Guide', 'leading headings stay together');
  assert.ok(chunks[0]?.content.startsWith('# Guide\n\n## Install\n\n'));
  assert.ok(starts.includes('## Configure') && starts.includes('## Run'));
  for (const c of chunks) {
    // Headings may only form the leading run of a chunk, never appear after body text.
    const lines = c.content.split('\n').filter((l) => l !== '');
    const firstBody = lines.findIndex((l) => !l.startsWith('#'));
    const late = lines.slice(Math.max(firstBody, 0)).filter((l) => l.startsWith('#'));
    assert.deepEqual(late, [], `chunk ${c.chunkIndex} straddles a heading`);
  }
  assertWholeWords(text, chunks);
});

test('title-like lines split sections once a chunk has substance', () => {
  const text = `Overview\n${prose(4, 18)}\nInstallation Steps\n${prose(5, 10)}`;
  const chunks = chunkText(text);
  assert.equal(chunks.length, 2);
  assert.ok(chunks[1]?.content.startsWith('Installation Steps\n'));
  // A list of short lines is not a run of titles.
  const list = `Shopping\nApples\nPears\nPlums\n${prose(6, 3)}`;
  assert.equal(chunkText(list).length, 1);
});

test('over-long sentences split between words; giant words are hard-split', () => {
  const sentence = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' ');
  const chunks = chunkText(sentence, { targetTokens: 100 });
  assert.ok(chunks.every((c) => c.tokenCount <= 100));
  assertWholeWords(sentence, chunks);
  const giant = `Start here. ${'z'.repeat(2000)} end.`;
  const g = chunkText(giant, { targetTokens: 100 });
  assert.ok(g.every((c) => c.tokenCount <= 100));
  assert.ok(
    g.some((c) => /^z+$/.test(c.content)),
    'the giant word is cut into budget-sized parts',
  );
});

test('page of a chunk is the page of its first character', async () => {
  const { text, pages } = await extractText({ sourceType: 'pdf', data: readFileSync(samplePath('sample.pdf')) });
  const chunks = chunkText(text, { targetTokens: 20, overlapRatio: 0, pages });
  assert.ok(chunks.length >= 2);
  for (const c of chunks) {
    const span = pages?.find((p) => c.start >= p.start && c.start < p.end);
    assert.equal(c.page, span?.page);
  }
  assert.equal(chunks.find((c) => c.content.includes('quillfeather'))?.page, 1);
  assert.equal(chunks.find((c) => c.content.includes(PDF_PAGE2_PHRASE))?.page, 2);
  assert.equal(chunkText(text, { pages }).at(0)?.page, 1, 'one big chunk starts on page 1');
  assert.equal(chunkText(text).at(0)?.page, null, 'no pages, no page number');
});

test('chunking is deterministic', () => {
  const text = Array.from({ length: 5 }, (_, i) => `## Part ${i}\n\n${prose(i + 10, 30)}`).join('\n\n');
  assert.deepEqual(chunkText(text), chunkText(text));
});

test('sentence ends are found as the reference finds them: "." "!" "?" "…" "。" runs, then closing quotes or brackets, then space', () => {
  // Reference: the regular expression segmentation used to run (correct, but it backtracks).
  const reference = (s: string) => {
    const starts = [0];
    const re = /[.!?…。！？]+["'”’)\]]*\s+(?=\S)/g;
    for (let m = re.exec(s); m; m = re.exec(s)) starts.push(m.index + m[0].length);
    return starts;
  };
  const alphabet = ['.', '!', '?', '…', '。', '"', '”', ')', ']', ' ', ' ', '\u00a0', 'a', 'b', 'Z', '-'];
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 3000; i++) {
    const s = Array.from({ length: 1 + Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    assert.deepEqual(sentenceStarts(s), reference(s), JSON.stringify(s));
  }
  assert.deepEqual(sentenceStarts('One. Two!" (Three?) Four… 五。 six'), [0, 5, 11, 20, 26, 29]);
});

test('long runs of sentence punctuation are segmented in linear time', () => {
  // The old segmentation rescanned a run of "." once per character of it: 64 KiB of dots took
  // about 40 s, and a 50 MiB "word" days. Run in a child process so a regression fails (killed
  // after 60 s, ~100x the expected time on a loaded machine) instead of hanging the suite.
  const script = `
    import { chunkText } from ${JSON.stringify(new URL('./chunk.ts', import.meta.url).href)};
    const n = 1 << 20;
    const inputs = ['.'.repeat(n), 'a' + '!'.repeat(n), '。'.repeat(n), ('?'.repeat(5000) + '"'.repeat(5000) + ' x ').repeat(100)];
    for (const t of inputs) {
      const chunks = chunkText(t, { targetTokens: 512 });
      if (!chunks.length || chunks.at(-1).end !== t.trimEnd().length) throw new Error('text not covered');
    }
    console.log('segmented');`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.signal, null, 'chunking 1 MiB of punctuation did not finish within 60 s');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'segmented');
});

test('text written without spaces counts a token per Han, kana or Hangul character and splits at 。！？', () => {
  // 60 sentences of 30 characters and no spaces: before, one "word" per paragraph, so chunks of
  // 2,048 characters (chars / 4) cut wherever the budget ran out.
  const sentence = (i: number) => `${'维多利亚州的经济以服务业为主导墨尔本是澳大利亚第二大城市'.slice(i % 5)}${i}号。`;
  const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join('');
  assert.equal(estimateTokens('维多利亚州的经济'), Math.ceil(8 * 1.3));
  assert.equal(estimateTokens('iPhone很好'), Math.ceil(3 * 1.3));
  const chunks = chunkText(text, { targetTokens: 256, overlapRatio: 0 });
  assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
  for (const c of chunks) {
    assert.ok(c.tokenCount <= 256, `chunk ${c.chunkIndex} has ${c.tokenCount} tokens`);
    assert.ok([...c.content].length <= 256, `chunk ${c.chunkIndex} has ${[...c.content].length} characters`);
    assert.ok(c.content.endsWith('。'), `chunk ${c.chunkIndex} ends mid-sentence: …${c.content.slice(-8)}`);
  }
  assert.equal(chunks.at(-1)!.end, text.length);
  // Japanese sentences end the same way; a closing bracket stays with its sentence.
  assert.deepEqual(sentenceStarts('東京です。「大阪」です！次は？'), [0, 5, 12]);
  assert.deepEqual(sentenceStarts('他说：“好。”然后走了。'), [0, 7]);
});
