// `--typos`: the test queries with one seeded misspelling each (one edit in one word of five letters
// or more), scored against the same qrels, for docsift (text and hybrid, through the API) and the
// peers (their plain text search, and their fuzzy match: Orama `tolerance: 1`, LanceDB `fuzziness: 1`).
import { rng } from '../lib/prose.js';
import { printTable } from '../lib/report.js';
import type { ApiCall } from '../lib/http.js';
import type { TestQuery } from './dataset.js';
import { scoreRun } from './metrics.js';
import { runHttp } from './ours.js';
import type { Peer, PeerVariant } from './peers/types.js';

export interface TypoQuery extends TestQuery {
  /** The word misspelled, as written in the query, and what it became. */
  word: string;
  typo: string;
  edit: 'substitute' | 'insert' | 'delete';
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/** A word the misspelling may touch: five letters or more (any script), as the typo rule counts them. */
const WORD = /\p{L}{5,}/gu;

function seedOf(id: string, seed: number): number {
  let h = 2166136261 ^ seed;
  for (const ch of id) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

/** One Levenshtein edit (substitution, insertion or deletion) at a random place of `word`, never a no-op. */
export function misspellWord(word: string, rand: () => number): { typo: string; edit: TypoQuery['edit'] } {
  const chars = [...word];
  for (;;) {
    const edit = (['substitute', 'insert', 'delete'] as const)[Math.floor(rand() * 3)]!;
    const letter = LETTERS[Math.floor(rand() * LETTERS.length)]!;
    const at = Math.floor(rand() * (edit === 'insert' ? chars.length + 1 : chars.length));
    const out = [...chars];
    if (edit === 'substitute') out[at] = letter;
    else if (edit === 'insert') out.splice(at, 0, letter);
    else out.splice(at, 1);
    const typo = out.join('');
    if (typo.toLowerCase() !== word.toLowerCase()) return { typo, edit };
  }
}

/**
 * Each query with one misspelled word, always the same for a query id and seed. Queries without a
 * word of five letters or more are left out (counted by the caller).
 */
export function misspellQueries(queries: readonly TestQuery[], seed = 39): TypoQuery[] {
  const out: TypoQuery[] = [];
  for (const q of queries) {
    const words = [...q.text.matchAll(WORD)];
    if (!words.length) continue;
    const rand = rng(seedOf(q.id, seed));
    const m = words[Math.floor(rand() * words.length)]!;
    const { typo, edit } = misspellWord(m[0], rand);
    const text = q.text.slice(0, m.index) + typo + q.text.slice(m.index! + m[0].length);
    out.push({ ...q, text, word: m[0], typo, edit });
  }
  return out;
}

/**
 * nDCG@10 of the misspelled queries and of the same queries spelled right (never the whole clean set:
 * the queries without a word to misspell are not in the misspelled one), and their ratio.
 */
export function typoShare(
  cleanRuns: ReadonlyMap<string, string[]>,
  typoRuns: ReadonlyMap<string, string[]>,
  clean: readonly TestQuery[],
  typos: readonly TypoQuery[],
): { clean: number; typos: number; ratio: number } {
  const ids = new Set(typos.map((t) => t.id));
  const same = clean.filter((q) => ids.has(q.id));
  const c = scoreRun(new Map(cleanRuns), same, 100).ndcg10;
  const t = scoreRun(new Map(typoRuns), typos, 100).ndcg10;
  return { clean: c, typos: t, ratio: c ? t / c : 0 };
}

export interface TypoRow {
  system: string;
  label: string;
  clean: number | null;
  typos: number;
  noResult: number;
  corrected?: number;
}

interface ApiBody {
  results: unknown[];
  correction?: unknown;
}

/** docsift through the API on the misspelled queries, and every peer's plain and fuzzy text search. */
export async function runTypoStudy(o: {
  api: ApiCall;
  collection: string;
  clean: readonly TestQuery[];
  peers: readonly Peer[];
  runPeer: (run: PeerVariant['run'], queries: TestQuery[], qvecs: number[][]) => Promise<{ runs: Map<string, string[]> }>;
  embed: (texts: string[]) => Promise<number[][]>;
  concurrency: number;
  log: (line: string) => void;
}) {
  const typos = misspellQueries(o.clean);
  const ids = new Set(typos.map((t) => t.id));
  const cleanSame = o.clean.filter((q) => ids.has(q.id));
  o.log(`misspelled ${typos.length} of ${o.clean.length} test queries (the others have no word of five letters or more)`);
  const rows: TypoRow[] = [];
  for (const mode of ['text', 'hybrid'] as const) {
    const corrected = { n: 0 };
    const http = await runHttp(o.api, o.collection, typos, { label: `typos ${mode}`, mode }, o.concurrency, (body: ApiBody) => {
      if (body.correction) corrected.n++;
    });
    const spelled = await runHttp(o.api, o.collection, cleanSame, { label: `clean ${mode}`, mode }, o.concurrency);
    const share = typoShare(spelled.runs, http.runs, o.clean, typos);
    rows.push({
      system: 'docsift',
      label: mode,
      clean: share.clean,
      typos: share.typos,
      noResult: typos.filter((q) => !http.runs.get(q.id)?.length).length,
      corrected: corrected.n,
    });
  }
  if (o.peers.length) {
    const qvecs = await o.embed(typos.map((q) => q.text.trim()));
    for (const peer of o.peers) {
      const text = peer.variants.find((v) => v.mode === 'text');
      const spelled = text ? await o.runPeer(text.run, cleanSame, await o.embed(cleanSame.map((q) => q.text.trim()))) : null;
      for (const v of [text, peer.fuzzy].filter((x): x is PeerVariant => !!x)) {
        const run = await o.runPeer(v.run, typos, qvecs);
        const share = spelled ? typoShare(spelled.runs, run.runs, o.clean, typos) : null;
        rows.push({
          system: peer.name,
          label: v.label,
          clean: v === text && share ? share.clean : null,
          typos: scoreRun(run.runs, typos, 100).ndcg10,
          noResult: typos.filter((q) => !run.runs.get(q.id)?.length).length,
        });
      }
    }
  }
  printTable(
    `${typos.length} test queries with one misspelled word (seeded: one edit in one word of ≥ 5 letters): nDCG@10 on the same qrels, clean = the same queries spelled right`,
    ['system', 'variant', 'clean nDCG@10', 'typos nDCG@10', 'typos / clean', 'no result', 'corrected'],
    rows.map((r) => [
      r.system,
      r.label,
      r.clean?.toFixed(3),
      r.typos.toFixed(3),
      r.clean ? `${((100 * r.typos) / r.clean).toFixed(1)} %` : undefined,
      `${r.noResult}/${typos.length}`,
      r.corrected,
    ]),
  );
  const examples = typos.slice(0, 5).map((q) => `"${q.word}" → "${q.typo}"`);
  o.log(`  e.g. ${examples.join(', ')}`);
  return {
    queries: typos.length,
    of: o.clean.length,
    rows,
    sample: typos.slice(0, 20).map((q) => ({ id: q.id, text: q.text, word: q.word, typo: q.typo })),
  };
}
