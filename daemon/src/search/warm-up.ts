import type { AppDeps } from '../types.js';

/** Longest the start waits for the embedding provider's first answer; past it the API listens anyway. */
const EMBEDDER_WAIT_MS = 60_000;

export interface WarmUp {
  /** The query embedder's first answer (the built-in model loads here), or null when it gave none. */
  embedderMs: number | null;
}

/**
 * Runs before the API listens (SEARCH_WARM_UP), so the first search after "ready" does not load the
 * query embedder. The built-in model's load is the first search's excess without it: 1.2 to 1.4 s
 * against 0.05 s for the tenth; with it the first took 0.32 to 0.37 s (`npm run bench:startup`,
 * 2 cores at load 6 to 8). A provider that does not answer is only logged: hybrid search answers
 * from text until it does.
 */
export async function warmSearch(deps: AppDeps): Promise<WarmUp> {
  const t0 = performance.now();
  const warm = { embedderMs: await warmEmbedder(deps, t0) };
  deps.logger.info(warm, 'search warmed up');
  return warm;
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
