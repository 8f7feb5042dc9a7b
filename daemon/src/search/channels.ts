// The two channels of a search and what feeds them: the query's vector (embedded, or text only
// while the provider is down) and each channel's candidates with the query's typo corrections.
import { EmbeddingRejectedError, EmbeddingUnavailableError } from '../embeddings/types.js';
import { AppError } from '../errors.js';
import { isDatabaseUnavailable } from '../db/availability.js';
import type { Tx } from '../db/client.js';
import { StatementTimeoutError } from '../db/statement-timeout.js';
import type { FilterNode } from '../filters/parse.js';
import type { AppDeps } from '../types.js';
import { type Conditions, heavyFilter } from './conditions.js';
import { textCandidates, textSettings } from './text-channel.js';
import { vectorCandidates } from './vector-channel.js';
import { correctionTerms, type Correction } from './typo-tolerance.js';
import { surfaceForms } from './typo-display.js';

export type SearchMode = 'hybrid' | 'text' | 'vector';

/** What the channels read of a search request (service.ts SearchRequest). */
export interface ChannelRequest {
  query: string;
  mode: SearchMode;
  limit: number;
  maxChunksPerDocument?: number;
  /** Checked filter (filters/parse.ts): only chunks of documents passing it. */
  filter?: FilterNode;
}

/** Candidates each channel contributes before fusion. */
export const CANDIDATES = 100;

/** The query's vector, unless text mode; down or refusing (bad key, unknown model: an operator's fix), hybrid answers from text. */
export async function embedQuery(deps: AppDeps, req: ChannelRequest): Promise<{ queryVector?: number[]; fallback: 'text_only' | null }> {
  if (req.mode === 'text') return { fallback: null };
  try {
    return { queryVector: await deps.queryCache.embed(deps.embedder, req.query), fallback: null };
  } catch (err) {
    const provider = err instanceof EmbeddingUnavailableError || err instanceof EmbeddingRejectedError;
    if (provider && req.mode === 'vector')
      throw new AppError('SEARCH_UNAVAILABLE', 'Vector search is unavailable: the embedding provider cannot be reached.');
    if (!provider) throw err;
    if (err instanceof EmbeddingRejectedError)
      deps.logger.error({ err }, 'embedding provider refused the query: hybrid search falls back to text only');
    else deps.logger.warn({ err }, 'embedding provider down: hybrid search falls back to text only');
    return { fallback: 'text_only' };
  }
}

/**
 * Both channels' candidates (each chooses its own filtered variant), with the query's typo
 * corrections: at once, or one after the other under a heavy filter (conditions.ts HEAVY_FILTER_VALUES).
 */
export async function channelCandidates(
  deps: AppDeps,
  req: ChannelRequest,
  cond: Conditions,
  queryVector: number[] | undefined,
  correcting: Promise<Correction[]>,
) {
  const n = req.maxChunksPerDocument ? CANDIDATES : Math.max(req.limit, CANDIDATES);
  try {
    const corrections = await correcting;
    const text = (sql: Tx) =>
      req.mode === 'vector' ? [] : textCandidates(sql, textSettings(deps.config), req.query, cond, n, correctionTerms(corrections));
    const vector = (sql: Tx) => (queryVector ? vectorCandidates(sql, queryVector, cond, n) : []);
    const surface = (sql: Tx) => surfaceForms(sql, deps.config.TEXT_SEARCH_CONFIG, corrections);
    const [t, v, s] = await deps.reads.run(async (sql) =>
      heavyFilter(req.filter)
        ? [await text(sql), await vector(sql), await surface(sql)]
        : Promise.all([text(sql), vector(sql), surface(sql)]),
    );
    return { text: t, vector: v, corrections, surface: s };
  } catch (err) {
    // A statement past its time (StatementTimeoutError) answers for itself; the database being
    // unreachable is an outage the API answers with 503 (and logs once); anything else is a search fault.
    if (err instanceof StatementTimeoutError) deps.logger.warn({ ms: err.ms }, 'search statement cancelled: STATEMENT_TIMEOUT_MS');
    if (err instanceof AppError) throw err;
    if (isDatabaseUnavailable(err)) throw err;
    deps.logger.error({ err }, 'search backend failed');
    throw new AppError('SEARCH_UNAVAILABLE', 'Search is temporarily unavailable; retry shortly.');
  }
}
