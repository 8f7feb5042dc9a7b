// BEIR SciFact as the quality benchmark uses it: the corpus, the 300 test queries with their
// relevant documents, and a deterministic subset for quick runs.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot } from '../lib/env.js';

/** shared/ sits beside the main checkout; a worktree (e.g. /work/wt/x) finds it further up. */
export function findDataset(name = 'beir-scifact'): string {
  const rel = path.join('shared', 'datasets', name);
  for (let dir = path.resolve(repoRoot, '..'); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, rel))) return path.join(dir, rel);
    if (path.dirname(dir) === dir) return path.resolve(repoRoot, '..', rel);
  }
}

/** Language code of a dataset: which peer tokenizers and stemmers it is compared with (peers/languages.ts). */
export type LanguageCode = 'en' | 'de' | 'es' | 'ru' | 'zh';

export interface Dataset {
  dir: string;
  title: string;
  /** The language the benchmark's collection is created with through the API. */
  language: string;
  code: LanguageCode;
}

/**
 * `--dataset` names: BEIR SciFact (the default) and NFCorpus; XQuAD-R's parallel question sets in
 * five languages (1,190 questions each, the same ids in every language, answer sentences as documents).
 */
export const DATASETS = {
  scifact: { dir: 'beir-scifact', title: 'BEIR SciFact', language: 'english', code: 'en' },
  nfcorpus: { dir: 'beir-nfcorpus', title: 'BEIR NFCorpus', language: 'english', code: 'en' },
  'xquad-r-en': { dir: 'xquad-r-en', title: 'XQuAD-R en', language: 'english', code: 'en' },
  'xquad-r-de': { dir: 'xquad-r-de', title: 'XQuAD-R de', language: 'german', code: 'de' },
  'xquad-r-es': { dir: 'xquad-r-es', title: 'XQuAD-R es', language: 'spanish', code: 'es' },
  'xquad-r-ru': { dir: 'xquad-r-ru', title: 'XQuAD-R ru', language: 'russian', code: 'ru' },
  'xquad-r-zh': { dir: 'xquad-r-zh', title: 'XQuAD-R zh', language: 'chinese', code: 'zh' },
} as const satisfies Record<string, Dataset>;
export type DatasetName = keyof typeof DATASETS;

export const DATASET_DIR = process.env.QUALITY_DATASET_DIR ?? findDataset();

export interface CorpusDoc {
  id: string;
  title: string;
  text: string;
}

export interface TestQuery {
  id: string;
  text: string;
  /** Relevant corpus ids (score > 0). */
  relevant: Set<string>;
  /** Each relevant id's grade (SciFact: all 1; NFCorpus: 2 or 1). */
  grades: Map<string, number>;
}

/** Tag that carries the BEIR id through ingestion; search results return it, which maps them back. */
export const BEIR_TAG_PREFIX = 'beir:';
export const beirTag = (id: string): string => `${BEIR_TAG_PREFIX}${id}`;
export function beirIdFromTags(tags: readonly string[]): string | undefined {
  const t = tags.find((x) => x.toLowerCase().startsWith(BEIR_TAG_PREFIX));
  return t?.slice(BEIR_TAG_PREFIX.length);
}

export function loadCorpus(dir = DATASET_DIR): CorpusDoc[] {
  const raw = gunzipSync(readFileSync(path.join(dir, 'corpus.jsonl.gz'))).toString('utf8');
  return raw
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title: string; text: string };
      return { id: String(o._id), title: o.title, text: o.text };
    });
}

/** The test queries: exactly those with qrels in qrels-test.tsv, in queries.jsonl order. */
export function loadTestQueries(dir = DATASET_DIR): TestQuery[] {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(path.join(dir, 'qrels-test.tsv'), 'utf8').split('\n').slice(1)) {
    const [qid, did, score] = line.trim().split('\t');
    if (!qid || !did || !(Number(score) > 0)) continue;
    const grades = qrels.get(qid) ?? new Map<string, number>();
    grades.set(did, Number(score));
    qrels.set(qid, grades);
  }
  const out: TestQuery[] = [];
  for (const line of readFileSync(path.join(dir, 'queries.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line) as { _id: string; text: string };
    const grades = qrels.get(String(o._id));
    if (grades) out.push({ id: String(o._id), text: o.text, relevant: new Set(grades.keys()), grades });
  }
  if (out.length !== qrels.size) throw new Error(`qrels name ${qrels.size} queries but queries.jsonl has ${out.length} of them`);
  return out;
}

/**
 * The SciFact claims that are not test queries (the train split, whose labels are not here): real
 * questions about this corpus that choosing a setting may look at without touching the test set.
 */
export function loadOtherQueries(dir = DATASET_DIR): string[] {
  const test = new Set(loadTestQueries(dir).map((q) => q.id));
  return readFileSync(path.join(dir, 'queries.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((o) => !test.has(String(o._id)))
    .map((o) => o.text);
}

/**
 * A quick-run subset of `limit` documents: the relevant documents of test queries taken in order
 * until they make up about a tenth of the subset (the full corpus has ~6 %), then other documents
 * in corpus order as distractors. Only queries whose relevant documents are all present are kept.
 */
export function subsetCorpus(corpus: CorpusDoc[], queries: TestQuery[], limit: number): { docs: CorpusDoc[]; queries: TestQuery[] } {
  if (limit >= corpus.length) return { docs: corpus, queries };
  const chosen = new Set<string>();
  const budget = Math.max(1, Math.round(limit / 10));
  for (const q of queries) {
    if (chosen.size + q.relevant.size > budget) break;
    for (const d of q.relevant) chosen.add(d);
  }
  for (const d of corpus) {
    if (chosen.size >= limit) break;
    chosen.add(d.id);
  }
  return restrictTo(corpus, queries, chosen);
}

/** Documents in `ids`, and the queries all of whose relevant documents are among them. */
export function restrictTo(corpus: CorpusDoc[], queries: TestQuery[], ids: Set<string>): { docs: CorpusDoc[]; queries: TestQuery[] } {
  return {
    docs: corpus.filter((d) => ids.has(d.id)),
    queries: queries.filter((q) => [...q.relevant].every((d) => ids.has(d))),
  };
}
