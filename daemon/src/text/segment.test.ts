import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HIGHLIGHT_SEP,
  SECTION_GAP,
  hasSegmentedScript,
  highlightQuery,
  segmentForHighlight,
  segmentForIndex,
  segmentQuery,
} from './segment.js';

const words = (s: string) => s.split(/\s+/).filter(Boolean);

test('text of spaced scripts passes unchanged, on both sides', () => {
  for (const t of ['stem cells in mice', 'covid-19 IL-6/IL-10 cells/ml', '"gene expression" -mice', 'Verträge über Häuser', '']) {
    assert.equal(segmentForIndex(t), t);
    assert.equal(segmentQuery(t), t);
    assert.equal(segmentForHighlight(t), t);
  }
  assert.equal(hasSegmentedScript('naïve café'), false);
  for (const t of ['经济', 'ภาษา', 'コーヒー', '한국어']) assert.equal(hasSegmentedScript(t), true);
});

test('Chinese is indexed as its characters in order, then the gap, then its words', () => {
  const [stream, tail] = segmentForIndex('维多利亚州的经济以服务业为主导。').split(SECTION_GAP);
  assert.deepEqual(words(stream!), ['维', '多', '利', '亚', '州', '的', '经', '济', '以', '服', '务', '业', '为', '主', '导']);
  assert.deepEqual(words(tail!), ['维多利亚', '州', '的', '经济', '以', '服务', '业', '为', '主导']);
});

test('mixed text keeps its Latin words, numbers and hyphenated terms whole', () => {
  const [stream] = segmentForIndex('新款iPhone 15支持covid-19检测，价格为3.14万').split(SECTION_GAP);
  const w = words(stream!);
  for (const latin of ['iPhone', '15', 'covid-19', '3.14']) assert.ok(w.includes(latin), `${latin} in ${w.join(' ')}`);
  assert.ok(!w.some((x) => /[a-z][\u4e00-\u9fff]|[\u4e00-\u9fff][a-z]/i.test(x)), 'no Latin word glued to a character');
});

test('Thai is split into ICU words, Japanese and Korean into characters and words', () => {
  assert.deepEqual(words(segmentForIndex('ภาษาไทยเป็นภาษาที่สวยงาม')), ['ภาษา', 'ไทย', 'เป็น', 'ภาษา', 'ที่', 'สวยงาม']);
  const [ja, jaWords] = segmentForIndex('東京都に住んでいます').split(SECTION_GAP);
  assert.deepEqual(words(ja!).slice(0, 3), ['東', '京', '都']);
  assert.ok(words(jaWords!).includes('東京'));
  const [ko, koWords] = segmentForIndex('한국어를 공부합니다').split(SECTION_GAP);
  assert.deepEqual(words(ko!), ['한', '국', '어', '를', '공', '부', '합', '니', '다']);
  assert.deepEqual(words(koWords!), ['한국어를', '공부합니다']);
});

test('a query ranks its characters and words; phrases and exclusions become phrases of characters', () => {
  assert.equal(segmentQuery('维多利亚州的经济'), '维 多 利 亚 州 的 经 济 维多利亚 州 的 经济');
  assert.equal(segmentQuery('"服务业" -农业 经济'), '"服 务 业" -"农 业" 经 济 服务 业 经济');
  // An excluded word of one character stays a word; excluded Latin words stay as written.
  assert.equal(segmentQuery('经济 -州 -covid-19'), '经 济 -州 -covid-19 经济');
  // An unterminated phrase is closed, so the words appended to rank stay outside it.
  assert.equal(segmentQuery('"维多'), '"维 多" 维 多');
  assert.equal(segmentQuery('iPhone很好 -"服务 业"'), 'iPhone 很 好 -"服 务 业" 很好');
});

test('a highlight keeps the text as written apart from its separators', () => {
  const text = '维多利亚州的经济，以服务业为主导。iPhone 15';
  const marked = segmentForHighlight(text);
  assert.notEqual(marked, text);
  assert.equal(marked.replaceAll(HIGHLIGHT_SEP, ''), text);
  assert.equal(segmentForHighlight(`a${HIGHLIGHT_SEP}b`), 'a b');
});

test('a highlight marks the query words as phrases, single characters only when nothing longer', () => {
  assert.equal(highlightQuery('维多利亚州的经济'), '"维 多 利 亚" or "经 济" or "维 多 利 亚 州 的 经 济"');
  assert.equal(highlightQuery('服务业'), '"服 务" or "服 务 业"');
  assert.equal(highlightQuery('经济 -服务 iPhone'), '"经 济" or iPhone');
  assert.equal(highlightQuery('州'), '"州"');
});
