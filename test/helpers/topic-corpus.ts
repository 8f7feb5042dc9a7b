// A small deterministic corpus for end-to-end checks that a copy of the data searches the same: each
// document mixes words of two topics, and a fixed query set asks about single topics.
import type { http } from './daemon.js';

const TOPICS = [
  ['canal', 'lock', 'barge', 'towpath', 'sluice'],
  ['orchard', 'pruning', 'graft', 'cider', 'blossom'],
  ['glacier', 'moraine', 'crevasse', 'firn', 'icefall'],
  ['telescope', 'nebula', 'parallax', 'aperture', 'eyepiece'],
  ['loom', 'weft', 'warp', 'shuttle', 'tapestry'],
  ['harbour', 'jetty', 'tide', 'mooring', 'lighthouse'],
  ['violin', 'bow', 'rosin', 'fingerboard', 'sonata'],
  ['bakery', 'sourdough', 'proofing', 'crust', 'oven'],
];
const FILLER = ['the', 'notes', 'describe', 'a', 'small', 'survey', 'of', 'local', 'practice', 'and', 'its', 'history'];

/** Document `i`'s text: about 60 words, mostly of topic i mod 8 and some of topic (3i+1) mod 8. */
export function topicText(i: number, salt = ''): string {
  const a = TOPICS[i % TOPICS.length]!;
  const b = TOPICS[(3 * i + 1) % TOPICS.length]!;
  let x = (i * 2654435761 + salt.length * 97) >>> 0;
  const words: string[] = [`Record ${i}${salt ? ` ${salt}` : ''}.`];
  for (let j = 0; j < 60; j++) {
    x = (x * 1103515245 + 12345) >>> 0;
    const r = x / 2 ** 32;
    const pool = r < 0.45 ? a : r < 0.6 ? b : FILLER;
    words.push(pool[Math.floor(((x >>> 8) % 1000) / (1000 / pool.length))]!);
  }
  return words.join(' ');
}

/** One query per topic, two words each. */
export const FIXED_QUERIES = TOPICS.map((t) => `${t[0]} ${t[2]}`);

/** The top 10 document ids of each fixed query over `collections`, per mode. */
export async function topTens(
  req: ReturnType<typeof http>,
  key: string,
  collections: string[],
  modes: ('hybrid' | 'text' | 'vector')[] = ['text', 'vector', 'hybrid'],
  idOf: (r: { document_id: string; title?: string }) => string = (r) => r.document_id,
): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const mode of modes)
    for (const query of FIXED_QUERIES) {
      const r = await req('POST', '/api/v1/search/', { key, json: { query, collections, limit: 10, mode } });
      if (r.status !== 200) throw new Error(`search "${query}" (${mode}) answered ${r.status}: ${r.text}`);
      out[`${mode}: ${query}`] = (r.body.results as { document_id: string }[]).map(idOf);
    }
  return out;
}
