// The floor under the HTTP figures: the very functions the search service runs (text channel with
// its typo-tolerance step, vector channel, fusion, hydrate), called directly on a postgres.js pool
// configured like the daemon's (createSql: same startup parameters, hnsw.ef_search 100, prepared
// statements).
import type { Sql } from '../../../daemon/src/db/client.js';
import { rrf, single } from '../../../daemon/src/search/fusion.js';
import { hydrate } from '../../../daemon/src/search/hydrate.js';
import { compileConditions, type Conditions } from '../../../daemon/src/search/conditions.js';
import { loadConfig } from '../../../daemon/src/config.js';
import { textCandidates, textSettings } from '../../../daemon/src/search/text-channel.js';
import { vectorCandidates } from '../../../daemon/src/search/vector-channel.js';
import { CANDIDATES } from '../../../daemon/src/search/channels.js';
import { correctionTerms } from '../../../daemon/src/search/typo-tolerance.js';
import { CorrectionCache } from '../../../daemon/src/search/correction-cache.js';
import { runLoad, type LoadResult } from './load.js';

/** Each channel contributes CANDIDATES candidates, as in a search (channels.ts); results default to 5. */
export { CANDIDATES };
/** application_name of the floor's pool (its backends' CPU is measured by name). */
export const FLOOR_APP = 'bench-search-floor';
export const LIMIT = 5;
/** The daemon's defaults (text search configuration, k1, b): the bench's daemon runs with them too. */
const TEXT = textSettings(loadConfig({}));
/** A statement limit no benchmark statement reaches: the figures are the statements' own. */
const TIMEOUT_MS = 600_000;

export type FloorStep = 'text-channel' | 'typo-step' | 'vector-channel' | 'hydrate' | 'text' | 'vector' | 'hybrid';

/** As the daemon's (createDeps): the words typo tolerance need not correct, per scope and vocabulary generation. */
const remembered = new CorrectionCache();
const corrections = (sql: Sql, query: string, collectionIds: string[]) =>
  remembered.find((fn) => fn(sql), TEXT.textConfig, query, collectionIds);

/**
 * The text channel as the service runs it (typo tolerance on, the default): the query's unknown
 * words looked up first (through the daemon's cache: one small statement when every word is
 * remembered as known), then the channel with the corrections. `typo-step` is the lookup alone.
 */
async function textChannel(sql: Sql, query: string, c: Conditions) {
  const found = await corrections(sql, query, c.collectionIds);
  return textCandidates(sql, TEXT, query, c, CANDIDATES, correctionTerms(found));
}

export interface FloorQuery {
  text: string;
  vector: number[];
}

/**
 * One step for one query. `text`/`vector`/`hybrid` are the whole database part of a search in that
 * mode, as service.ts runs it: channels in parallel, fusion, then hydrate of the top `limit`.
 */
export function floorStep(sql: Sql, step: FloorStep, collectionIds: string[], hydrateIds?: Map<string, string[]>) {
  const f = compileConditions(sql, { collectionIds }, TIMEOUT_MS);
  return async (q: FloorQuery): Promise<{ ok: boolean; body?: unknown }> => {
    switch (step) {
      case 'text-channel':
        return { ok: true, body: (await textChannel(sql, q.text, f)).length };
      case 'typo-step':
        return { ok: true, body: (await corrections(sql, q.text, collectionIds)).length };
      case 'vector-channel':
        return { ok: true, body: (await vectorCandidates(sql, q.vector, f, CANDIDATES)).length };
      case 'hydrate': {
        const ids = hydrateIds?.get(q.text) ?? [];
        const rows = await hydrate(
          sql,
          ids.map((chunkId, i) => ({ chunkId, score: 1 - i / 100 })),
          f,
        );
        return { ok: true, body: rows.length };
      }
      default: {
        const [text, vector] = await Promise.all([
          step === 'vector' ? [] : textChannel(sql, q.text, f),
          step === 'text' ? [] : vectorCandidates(sql, q.vector, f, CANDIDATES),
        ]);
        const fused = step === 'text' ? single(text, 'text') : step === 'vector' ? single(vector, 'vector') : rrf(text, vector);
        const rows = await hydrate(sql, fused.slice(0, LIMIT), f);
        return { ok: true, body: rows.length };
      }
    }
  };
}

/** Top-5 hybrid chunk ids per query, so the hydrate step alone loads what a search would. */
export async function hydrateTargets(sql: Sql, queries: FloorQuery[], collectionIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const f = compileConditions(sql, { collectionIds }, TIMEOUT_MS);
  for (const q of queries) {
    const [t, v] = await Promise.all([textCandidates(sql, TEXT, q.text, f, CANDIDATES), vectorCandidates(sql, q.vector, f, CANDIDATES)]);
    out.set(
      q.text,
      rrf(t, v)
        .slice(0, LIMIT)
        .map((x) => x.chunkId),
    );
  }
  return out;
}

export async function measureFloor(
  sql: Sql,
  step: FloorStep,
  queries: FloorQuery[],
  collectionIds: string[],
  opts: { concurrency: number; requests: number; hydrateIds?: Map<string, string[]>; cpu?: () => Promise<number> },
): Promise<LoadResult> {
  const run = floorStep(sql, step, collectionIds, opts.hydrateIds);
  // Warm: plans prepared on the pool's connections, pages cached.
  await runLoad(queries, { concurrency: Math.min(opts.concurrency, 4), requests: Math.min(100, queries.length) }, run);
  const r = await runLoad(queries, opts, run);
  delete r.sample;
  return r;
}
