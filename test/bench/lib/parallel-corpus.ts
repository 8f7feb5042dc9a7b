// A corpus of real text in one language for bench:ingest (BENCH_TEXT=xquad-r-zh|xquad-r-en|…):
// XQuAD-R's 240 Wikipedia paragraphs, the same ones in every language, as plain-text files of a
// few consecutive paragraphs each. Chinese against English on the same content measures what
// segmentation costs ingestion (docs/performance.md, "Languages written without spaces").
import { DATASETS, findDataset, loadCorpus, type DatasetName } from '../quality/dataset.js';
import type { CorpusFile } from './corpus.js';

export interface ParallelCorpus {
  files: CorpusFile[];
  /** The collection's language: the dataset's (chinese for xquad-r-zh). */
  language: string;
}

/** `docs` files of `paragraphs` consecutive paragraphs each, wrapping around the 240. */
export function buildParallelCorpus(name: string, docs: number, paragraphs = 6): ParallelCorpus {
  if (!name.startsWith('xquad-r-') || !Object.hasOwn(DATASETS, name))
    throw new Error(`BENCH_TEXT must be an xquad-r-<lang> dataset, not ${name}`);
  const dataset = DATASETS[name as DatasetName];
  const byParagraph = new Map<string, string[]>();
  for (const d of loadCorpus(findDataset(dataset.dir))) {
    const p = d.id.split('-')[0]!;
    byParagraph.set(p, [...(byParagraph.get(p) ?? []), d.text]);
  }
  // Chinese and Japanese sentences follow each other without a space.
  const joiner = dataset.code === 'zh' ? '' : ' ';
  const texts = [...byParagraph.values()].map((sentences) => sentences.join(joiner));
  const files = Array.from({ length: docs }, (_, i) => {
    const text = Array.from({ length: paragraphs }, (_, k) => texts[(i * paragraphs + k) % texts.length]).join('\n\n');
    const data = Buffer.from(text, 'utf8');
    return { name: `${name}-${i + 1}.txt`, type: 'txt', mediaType: 'text/plain', data, textChars: text.length, large: false };
  });
  return { files, language: dataset.language };
}
