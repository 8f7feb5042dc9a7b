import type { Tx } from '../db/client.js';
import { rememberBounded } from './bounded-memory.js';
import { plainWords } from './operators.js';
import { allowedEdits, type Correction, correctWords, hasWordToLookUp, queryWords, READINGS } from './typo-tolerance.js';

type Run = <T>(fn: (sql: Tx) => Promise<T>) => Promise<T>;

/** Words remembered (about 100 bytes each: 5 MB). */
export const FINE_WORDS = 50_000;
/** Whole queries' answers remembered (about 300 bytes each: 3 MB). */
export const ANSWERS = 10_000;

/**
 * Letters every PostgreSQL locale's parser reads as letters (ASCII, Latin-1 and Latin Extended-A/B,
 * Greek, Cyrillic). In a query whose letters are all among them, the parser's word tokens that
 * typo tolerance may correct (all letters: allowedEdits) are exactly runs of letters, so the runs
 * of letters cover every word the lists are asked about; any other query is answered whole.
 */
const PLAIN_SCRIPT = /^(?:\P{L}|[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff])*$/u;
const LETTERS = /\p{L}+/gu;

/** The searched collections of one text configuration, and their vocabulary generations. */
interface Vocabulary {
  cfg: string;
  nos: number[];
  /** The configuration with every collection's number and generation: what a remembered word is valid under. */
  key: string;
}

/**
 * The searched collections per text configuration, each with its vocabulary generation (migration
 * 125): it grows with every committed chunk write or deletion in the collection and never repeats.
 */
async function vocabularies(sql: Tx, textConfig: string, collectionIds: readonly string[]): Promise<Vocabulary[]> {
  const rows = await sql<{ cfg: string; no: number; gen: string }[]>`
    select coalesce(c.text_config, ${textConfig}) as cfg, c.no,
           (coalesce((select v.folded from collection_vocabulary v where v.collection_id = c.id), 0)
            + (select count(*) from collection_text_stats_delta d where d.collection_id = c.id))::text as gen
      from unnest(${collectionIds as string[]}::uuid[]) as f(id)
      join collections c on c.id = f.id`;
  const byCfg = new Map<string, { no: number; gen: string }[]>();
  for (const r of rows) byCfg.set(r.cfg, [...(byCfg.get(r.cfg) ?? []), r]);
  return [...byCfg].map(([cfg, list]) => {
    list.sort((a, b) => a.no - b.no);
    return { cfg, nos: list.map((x) => x.no), key: `${cfg}\u0001${list.map((x) => `${x.no}:${x.gen}`).join(',')}` };
  });
}

/**
 * Typo corrections (typo-tolerance.ts findCorrections) with two memories of the daemon's, both
 * under (configuration, collections, their vocabulary generations):
 * - the words that need none: a word the searched collections' lists hold, or one with no single
 *   lexeme (a stop word). A search whose every word of SHORTEST_WORD letters or more is remembered so runs
 *   one small statement (the generations) instead of parsing the query against the lists; one
 *   with no such word runs none;
 * - the answer for a query as a whole (its corrections, or none), so a repeated query with an
 *   unknown word runs the generations' statement alone too.
 * A chunk written or deleted moves its collection's generation, so nothing remembered before
 * applies after it, and the key holds the collections' numbers, so what one scope's lists hold
 * never answers for another. What is remembered comes from look-ups after the generations were
 * read: it describes the lists at that generation or a later one, as the uncached look-up running
 * a moment later would. Bounded: at the size given, the oldest tenth of a memory is dropped.
 */
export class CorrectionCache {
  private readonly fine = new Map<string, true>();
  private readonly answers = new Map<string, Correction[]>();
  /** Searches that parsed their query against the lists (for tests and benchmarks). */
  lookups = 0;

  constructor(
    private readonly maxWords = FINE_WORDS,
    private readonly maxAnswers = ANSWERS,
  ) {}

  async find(run: Run, textConfig: string, query: string, collectionIds: readonly string[], readings = READINGS): Promise<Correction[]> {
    if (!collectionIds.length) return [];
    const plain = plainWords(query);
    if (!hasWordToLookUp(plain)) return [];
    const words = PLAIN_SCRIPT.test(plain) ? [...new Set(plain.match(LETTERS) ?? [])].filter((w) => allowedEdits(w) > 0) : null;
    if (words?.length === 0) return [];
    return run(async (sql) => {
      const scopes = await vocabularies(sql, textConfig, collectionIds);
      if (words && scopes.every((s) => words.every((w) => this.fine.has(wordKey(s, w))))) return [];
      const answerKey = `${readings}\u0002${scopes.map((s) => s.key).join('\u0002')}\u0002${query}`;
      const answer = this.answers.get(answerKey);
      if (answer) return answer.map((c) => ({ ...c, nos: [...c.nos] }));
      this.lookups++;
      const found = await queryWords(sql, textConfig, query, collectionIds);
      for (const w of found) {
        if (w.lexeme !== null && !w.known) continue;
        const nos = [...w.nos].sort((a, b) => a - b).join(',');
        const scope = scopes.find((s) => s.cfg === w.cfg && s.nos.join(',') === nos);
        if (scope) rememberBounded(this.fine, this.maxWords, wordKey(scope, w.word), true);
      }
      const corrections = await correctWords(sql, query, found, readings);
      rememberBounded(
        this.answers,
        this.maxAnswers,
        answerKey,
        corrections.map((c) => ({ ...c, nos: [...c.nos] })),
      );
      return corrections;
    });
  }
}

const wordKey = (s: Vocabulary, word: string) => `${s.key}\u0000${word}`;
