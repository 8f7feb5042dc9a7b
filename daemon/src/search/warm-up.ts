import type { AppDeps } from '../types.js';
import { searchNothing } from './service.js';

/** The warm-up's query: embedded once (through the query cache), then searched for over no collection. */
const WARM_QUERY = 'warm up the query embedder';
/** Longest the start waits for the embedding provider's first answer; past it the API listens anyway. */
const EMBEDDER_WAIT_MS = 60_000;

export interface WarmUp {
  /** The query embedder's first answer (the built-in model loads here), or null when it gave none. */
  embedderMs: number | null;
  /** The searches over no collection that planned a search's statements on the pool's connections, or null when they failed. */
  statementsMs: number | null;
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
  const warm = { embedderMs, statementsMs: await warmStatements(deps, connections, embedderMs === null ? 'text' : 'hybrid') };
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
 * One search over no collection per open connection, at once (search/service.ts searchNothing):
 * each connection has then planned the statements of a search (its backend's catalog caches
 * loaded, the statements prepared), and the background sample's two statements too. A failure
 * is logged and left to the first request.
 */
async function warmStatements(deps: AppDeps, connections: number, mode: 'text' | 'hybrid'): Promise<number | null> {
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: connections }, () => searchNothing(deps, mode, WARM_QUERY)));
    return Math.round(performance.now() - t0);
  } catch (err) {
    deps.logger.warn({ err }, 'the search statements did not warm up: serving; the first searches plan them');
    return null;
  }
}
