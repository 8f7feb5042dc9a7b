import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../types.js';
import { searchCollections } from './service.js';

/** Longest the start waits for the embedding provider's first answer; past it the API listens anyway. */
const EMBEDDER_WAIT_MS = 60_000;

export interface WarmUp {
  /** The query embedder's first answer (the built-in model loads here), or null when it gave none. */
  embedderMs: number | null;
  /** Every pool connection opened and its search extensions loaded. */
  connectionsMs: number;
  connections: number;
  /** The search statements prepared on every connection, or null when they failed. */
  statementsMs: number | null;
}

/**
 * Runs before the API listens (SEARCH_WARM_UP), so the first search after "ready" costs what the
 * tenth does (`npm run bench:startup`): the query embedder answers once (the built-in model loads:
 * seconds on 2 cores, the first search's whole excess without this) while each of the read pool's
 * DB_POOL_MAX connections opens and loads what a search statement needs on a fresh backend
 * (pgvector, the text search configuration); then every search statement is prepared on each of
 * them. A provider that does not answer is only logged: hybrid search answers from text until it does.
 */
export async function warmSearch(deps: AppDeps): Promise<WarmUp> {
  const t0 = performance.now();
  const [embedderMs, connections] = await Promise.all([warmEmbedder(deps, t0), warmConnections(deps)]);
  const connectionsMs = Math.round(performance.now() - t0);
  const statementsMs = await warmStatements(deps);
  const warm = { embedderMs, connectionsMs, connections, statementsMs };
  deps.logger.info(warm, 'search warmed up');
  return warm;
}

/**
 * A hybrid search over a collection that does not exist, on every connection at once (each search
 * runs two statements at once): every statement a search sends is prepared on each connection, and
 * the code that builds and fuses them has run. It reads no one's data.
 */
async function warmStatements(deps: AppDeps): Promise<number | null> {
  const t0 = performance.now();
  const nowhere = [randomUUID()];
  try {
    await Promise.all(
      Array.from({ length: Math.ceil(deps.config.DB_POOL_MAX / 2) }, () =>
        searchCollections(deps, { query: 'warm up the search statements', mode: 'hybrid', limit: 10 }, nowhere),
      ),
    );
    return Math.round(performance.now() - t0);
  } catch (err) {
    deps.logger.warn({ err }, 'the search statements failed the warm-up: serving; the first searches prepare them');
    return null;
  }
}

async function warmEmbedder(deps: AppDeps, t0: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), EMBEDDER_WAIT_MS);
  });
  try {
    const answer = await Promise.race([deps.embedder.embed(['warm up the query embedder'], { interactive: true }), late]);
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

/** Opens every connection at once (postgres.js opens one per statement while all are busy, up to DB_POOL_MAX). */
async function warmConnections(deps: AppDeps): Promise<number> {
  const n = deps.config.DB_POOL_MAX;
  const config = deps.config.TEXT_SEARCH_CONFIG;
  const pids = await Promise.all(
    Array.from({ length: n }, () =>
      deps.reads.run(async (sql) => {
        const [row] = await sql<{ pid: number }[]>`
          select pg_backend_pid() as pid,
                 '[1,0]'::vector <=> '[0,1]'::vector as distance,
                 to_tsvector(${config}::regconfig, 'warm') @@ websearch_to_tsquery(${config}::regconfig, 'warm') as matched`;
        return row!.pid;
      }),
    ),
  );
  return new Set(pids).size;
}
