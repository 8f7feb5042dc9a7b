import type { AppDeps } from '../types.js';
import { countResults, searchNothing } from './service.js';

/** The warm-up's query: embedded once (through the query cache), then searched for over no collection. */
const WARM_QUERY = 'warm up the query embedder';
/** Longest the start waits for the embedding provider's first answer; past it the API listens anyway. */
const EMBEDDER_WAIT_MS = 60_000;

export interface WarmUp {
  /** The query embedder's first answer (the built-in model loads here), or null when it gave none. */
  embedderMs: number | null;
  /** The searches over no collection, then over a collection, that ran a search's statements on the pool's connections, or null when they failed. */
  statementsMs: number | null;
  /** Results the searches over a collection found (null: no collection holds a word to search for). */
  found: number | null;
}

/**
 * Runs before the API listens (SEARCH_WARM_UP), so the first search after "ready" neither loads the
 * query embedder, nor opens the pool's connections, nor plans its statements. The built-in model's
 * load is the first search's excess without it: 754 ms against 33 ms for the tenth; with it (and the
 * extraction threads started before the worker, server.ts), 78.5 ms against 35.3 ms
 * (`BENCH_ROUNDS=5 npm run bench:startup`, medians, 2 cores at load 2.6). With the statements
 * planned too (warmStatements), the first search is 73.1 ms against 40.8 ms for the tenth, 1.6× the
 * median of the 2nd to 10th in the median round against 2.05× without (`BENCH_ROUNDS=7
 * BENCH_PEER_CWD=<checkout without> npm run bench:startup`, 2026-11-29, 2 cores at load 3.4-4.9).
 * A provider that does not answer is only logged: hybrid search answers from text until it does.
 */
export async function warmSearch(deps: AppDeps): Promise<WarmUp> {
  const t0 = performance.now();
  const [embedderMs, connections] = await Promise.all([warmEmbedder(deps, t0), openConnections(deps)]);
  const warm = { embedderMs, ...(await warmStatements(deps, connections, embedderMs === null ? 'text' : 'hybrid')) };
  deps.logger.info(warm, 'search warmed up');
  return warm;
}

async function warmEmbedder(deps: AppDeps, t0: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), EMBEDDER_WAIT_MS);
  });
  try {
    const answer = await Promise.race([deps.queryCache.embed(deps.embedder, WARM_QUERY), late]);
    if (answer === 'late') {
      deps.logger.warn(
        { ms: EMBEDDER_WAIT_MS },
        'the embedding provider did not answer the warm-up: serving; the first searches may wait for it',
      );
      return null;
    }
    return Math.round(performance.now() - t0);
  } catch (err) {
    deps.logger.warn({ err }, 'the embedding provider failed the warm-up: serving; hybrid search answers from text until it answers');
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Opens the read pool's connections (a search runs its two channels on two at once): the first
 * searches then skip the connection start-up and authentication. A database that does not answer is
 * left to the first request, which answers 503 as any other would.
 */
async function openConnections(deps: AppDeps): Promise<number> {
  const n = Math.max(2, Math.min(deps.config.DB_POOL_MAX, 4));
  await Promise.all(Array.from({ length: n }, () => deps.reads.run((sql) => sql`select 1`))).catch(() => {});
  return n;
}

/**
 * Per open connection, at once: one search over no collection (search/service.ts searchNothing),
 * then one over a collection for a word it holds, so each connection has run every statement of a
 * search that finds something (its backend's catalog caches and dictionaries loaded, the statements
 * prepared) and the daemon's code has run on real postings. The first search after ready took
 * 40.8 / 41.5 ms against 58.7 / 56.7 ms over no collection alone, 1.5× / 1.4× the tenth against
 * 2.4× / 2.2× (`BENCH_ROUNDS=5 BENCH_PEER_CWD=<checkout without> npm run bench:startup` twice,
 * 2026-11-29, load 1.5); on the kept 1M-chunk database these searches take 229 ms against 113. A
 * failure is logged and left to the first request.
 */
async function warmStatements(
  deps: AppDeps,
  connections: number,
  mode: 'text' | 'hybrid',
): Promise<{ statementsMs: number | null; found: number | null }> {
  const t0 = performance.now();
  try {
    const real = await collectionWord(deps);
    const found = await Promise.all(
      Array.from({ length: connections }, async () => {
        await searchNothing(deps, mode, WARM_QUERY);
        return real ? countResults(deps, { query: real.word, mode, limit: 10 }, [real.id]) : null;
      }),
    );
    return { statementsMs: Math.round(performance.now() - t0), found: found[0] ?? null };
  } catch (err) {
    deps.logger.warn({ err }, 'the search statements did not warm up: serving; the first searches plan them');
    return { statementsMs: null, found: null };
  }
}

/** The oldest collection holding a word of four letters or more, with the first such word of its lists (0.2 ms at 1M chunks); null when none does. */
async function collectionWord(deps: AppDeps): Promise<{ id: string; word: string } | null> {
  const [row] = await deps.reads.run(
    (sql) => sql<{ id: string; word: string }[]>`
      select c.id, w.lexeme as word
        from collections c
        cross join lateral (select l.lexeme from text_lists l where l.coll = c.no and l.lexeme ~ '^[a-z]{4,}$' limit 1) w
       where c.deleted_at is null
       order by c.no
       limit 1`,
  );
  return row ?? null;
}
