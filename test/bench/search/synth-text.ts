// Deterministic synthetic chunk text from SciFact sentences: the BM25 prototype's generator
// (test/bench/prototypes/bm25/synth-corpus.ts, whose latency figures it reproduces), copied because
// the prototypes sit outside the test project's type checking. Chunks follow one seed abstract
// (topic coherence), then borrow sentences from others; 5% of words are resampled from a Zipf(1.0)
// law over the SciFact vocabulary and 0.3% become novel tokens, so the vocabulary keeps growing
// with corpus size (Heaps' law) instead of saturating at SciFact's 40k lexemes.
import { rng } from '../lib/prose.js';
import { loadCorpus } from '../quality/dataset.js';

/** The benchmarks' one seeded generator (mulberry32), re-exported for the corpus and vector builders. */
export { rng };

function zipfSampler(n: number, s: number, rand: () => number): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += 1 / (i + 1) ** s;
    cdf[i] = acc;
  }
  return () => {
    const x = rand() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface SynthChunk {
  /** title of the seed abstract: the chunk's topic */
  title: string;
  content: string;
}

export function makeGenerator(seed: number): () => SynthChunk {
  const rand = rng(seed);
  const docs = loadCorpus();
  // Each sentence split into its words once (the bulk loader asks for a million chunks).
  const sentences = docs.map((d) =>
    d.text
      .split(/(?<=[.!?])\s+/)
      .filter((s) => s.length > 0)
      .map((s) => s.split(/\s+/)),
  );
  const freq = new Map<string, number>();
  for (const d of docs) for (const w of d.text.split(/\s+/)) freq.set(w, (freq.get(w) ?? 0) + 1);
  const vocab = [...freq.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  const pickWord = zipfSampler(vocab.length, 1.0, rand);
  const pickDoc = zipfSampler(docs.length, 0.6, rand); // some abstracts are reused more often
  const docOrder = docs.map((_, i) => i).sort(() => rand() - 0.5);

  return () => {
    const seedDoc = docOrder[pickDoc()] ?? 0;
    const target = 100 + Math.floor(rand() * 151);
    const words: string[] = [];
    let d = seedDoc;
    let s = 0;
    while (words.length < target) {
      const sent = sentences[d]?.[s];
      if (sent === undefined) {
        d = Math.floor(rand() * docs.length);
        s = Math.floor(rand() * Math.max(1, (sentences[d]?.length ?? 1) - 1));
        continue;
      }
      for (const w of sent) {
        const r = rand();
        if (r < 0.003) words.push(`${w.replace(/\W+/g, '').slice(0, 6)}${Math.floor(rand() * 1e6).toString(36)}`);
        else if (r < 0.053) words.push(vocab[pickWord()] ?? w);
        else words.push(w);
      }
      s++;
    }
    return { title: docs[seedDoc]?.title ?? '', content: words.slice(0, target).join(' ') };
  };
}

/** 50 collections: one holds 70% of chunks, the other 49 share 30% with sizes ∝ 1/rank. */
export function collectionSizes(total: number): number[] {
  const big = Math.round(total * 0.7);
  const rest = total - big;
  const h = Array.from({ length: 49 }, (_, i) => 1 / (i + 1));
  const hs = h.reduce((a, b) => a + b, 0);
  const sizes = h.map((x) => Math.max(1, Math.floor((rest * x) / hs)));
  sizes[0] = (sizes[0] ?? 0) + rest - sizes.reduce((a, b) => a + b, 0);
  return [big, ...sizes];
}
