// Each peer's language support for a dataset's language: LanceDB's full-text tokenizers (tantivy
// stemmers and stop words; ICU, n-gram and jieba segmentation for Chinese) and Orama's tokenizers
// (its stemmers and stop-word lists; @orama/tokenizers' mandarin segmenter). A peer's first text
// variant is the one the targets compare: for each language, the best one measured on XQuAD-R.
import { mkdirSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { FtsOptions } from '@lancedb/lancedb';
import type { DefaultTokenizerConfig, Tokenizer } from '@orama/orama';
import type { LanguageCode } from '../dataset.js';

export interface LanceText {
  label: string;
  fts: Partial<FtsOptions>;
}

export interface OramaText {
  label: string;
  tokenizer(): Promise<DefaultTokenizerConfig | Tokenizer>;
}

export interface PeerLanguage {
  lance: LanceText[];
  orama: OramaText;
}

const base = { withPosition: false, lowercase: true } as const;
const stemmed = (language: string): LanceText => ({
  label: `${language} stemmer and stop words`,
  fts: { ...base, language, stem: true, removeStopWords: true, asciiFolding: true },
});

async function oramaStemmed(language: 'english' | 'german' | 'spanish' | 'russian'): Promise<DefaultTokenizerConfig> {
  const { stopwords } = (await import(`@orama/stopwords/${language}`)) as { stopwords: string[] };
  if (language === 'english') return { language, stemming: true, stopWords: stopwords };
  const { stemmer } = (await import(`@orama/stemmers/${language}`)) as { stemmer: (w: string) => string };
  return { language, stemmer, stopWords: stopwords };
}

/**
 * LanceDB's jieba tokenizer reads its dictionary from LANCE_LANGUAGE_MODEL_HOME/jieba/default and
 * ships none: the benchmark lays out jieba-rs's own dict.txt from the @node-rs/jieba package.
 */
export function jiebaModelHome(): string {
  const home = path.join(os.tmpdir(), 'docsift-quality-lance-models');
  const dir = path.join(home, 'jieba', 'default');
  mkdirSync(dir, { recursive: true });
  copyFileSync(createRequire(import.meta.url).resolve('@node-rs/jieba/dict.txt'), path.join(dir, 'dict.txt'));
  return home;
}

const stemmedLanguage = (lance: string, orama: 'english' | 'german' | 'spanish' | 'russian'): PeerLanguage => ({
  lance: [stemmed(lance)],
  orama: { label: `tokenizer ${orama} + stemmer + @orama/stopwords ${orama}`, tokenizer: () => oramaStemmed(orama) },
});

export const PEER_LANGUAGES: Record<LanguageCode, PeerLanguage> = {
  en: stemmedLanguage('English', 'english'),
  de: stemmedLanguage('German', 'german'),
  es: stemmedLanguage('Spanish', 'spanish'),
  ru: stemmedLanguage('Russian', 'russian'),
  // xquad-r-zh text nDCG@10 in LanceDB 0.37.1: ngram 1-2 0.837, icu 0.822, jieba 0.807, simple 0.084.
  zh: {
    lance: [
      {
        label: 'ngram 1-2',
        fts: { ...base, baseTokenizer: 'ngram', ngramMinLength: 1, ngramMaxLength: 2, stem: false, removeStopWords: false },
      },
      { label: 'icu', fts: { ...base, baseTokenizer: 'icu', stem: false, removeStopWords: false } },
      { label: 'jieba (jieba-rs dict.txt)', fts: { ...base, baseTokenizer: 'jieba/default', stem: false, removeStopWords: false } },
    ],
    orama: {
      label: '@orama/tokenizers mandarin (Intl.Segmenter words)',
      tokenizer: async () => (await import('@orama/tokenizers/mandarin')).createTokenizer(),
    },
  },
};
