import { meterSearch } from '../billing/quota.js';
import { AppError } from '../errors.js';
import type { Tx } from '../db/client.js';
import type { AppDeps, Caller, SearchNote } from '../types.js';
import { compileConditions } from './conditions.js';
import { keepRelevant, rrf, single, weighted, type Fused } from './fusion.js';
import { modelDefaults, type FusionMethod } from './fusion-defaults.js';
import { gateVector, resolveFloor, type Floor } from './relevance-floor.js';
import { requireOperators } from './operators.js';
import { type ChannelRequest, channelCandidates, embedQuery, type SearchMode } from './channels.js';
import { resultJson } from './result-json.js';
import { atThreshold } from './score-scale.js';
import { hydrate, type Hit } from './hydrate.js';
import { searchScope } from './scope.js';
import { blameOperators, explainEmpty } from './empty-reason.js';
import { judgeTopic, type Topic } from './evidence.js';
import type { Correction } from './typo-tolerance.js';
import { shownCorrection } from './typo-display.js';
import { annotate, type Annotations } from './annotate.js';
import { highlightSpans } from './highlights.js';

export type { SearchMode } from './channels.js';

export interface SearchRequest extends ChannelRequest {
  collection?: string;
  /** Several collections (slugs) at once, with `collection` if both are given. */
  collections?: string[];
  tags?: string[];
  explain?: boolean;
  fusion?: FusionMethod;
  semanticRatio?: number;
  /** Minimum similarity of a chunk only the vector channel found (hybrid), or of every chunk (vector). */
  minScore?: number;
  /** The request context's search note (the request log's record of this search), filled by metering. */
  note?: SearchNote;
  /** Drops results whose displayed `score` is below this (any mode): a threshold in the units results show. */
  scoreThreshold?: number;
  /** Reads query words the searched collections do not hold as near ones they do (default: the TYPO_TOLERANCE setting). */
  typoTolerance?: boolean;
  /** Hybrid: answer as if the query were on topic (evidence.ts); not part of the API: bench:quality's study reads the judgement from `explain`. */
  judgeOnly?: boolean;
  /** Facet fields (checked, facets.ts): value counts over the ranked candidates' documents. */
  facets?: string[];
}

type Source = 'request' | 'model_default' | 'none';

function capPerDocument<T extends Fused & { documentId: string }>(list: T[], max?: number): T[] {
  if (!max) return list;
  const seen = new Map<string, number>();
  return list.filter((r) => {
    const n = (seen.get(r.documentId) ?? 0) + 1;
    seen.set(r.documentId, n);
    return n <= max;
  });
}

/** Search (REST and MCP), metered: counted against the plan quota and recorded in the request log. */
export async function search(deps: AppDeps, caller: Caller, req: SearchRequest) {
  // PostgreSQL text cannot hold NUL: refused as bad input (REST, MCP and the web UI alike), never a 500.
  const withNul = Object.entries({
    query: [req.query],
    collection: [req.collection ?? ''],
    collections: req.collections ?? [],
    tags: req.tags ?? [],
  }).filter(([, values]) => values.some((v) => v.includes('\u0000')));
  if (withNul.length) {
    throw new AppError(
      'VALIDATION_FAILED',
      'Search input must not contain NUL characters.',
      Object.fromEntries(withNul.map(([name]) => [name, ['Must not contain NUL characters.']])),
    );
  }
  // Admitted before metering: a search refused for its organization's concurrency costs no quota.
  return deps.admission.run(caller.orgId, () => meterSearch(deps, caller, req.query, () => runSearch(deps, caller, req), req.note));
}

/**
 * Hybrid search over exactly the collections the caller may read. If the embedding provider is
 * down, hybrid degrades to text-only (flagged in the response) instead of failing.
 */
async function runSearch(deps: AppDeps, caller: Caller, req: SearchRequest) {
  return searchCollections(deps, req, await collectionsSearched(deps, caller, req));
}

/** The search over collections already resolved (and checked) for the caller. */
async function searchCollections(deps: AppDeps, req: SearchRequest, collectionIds: string[]) {
  const defaults = modelDefaults(deps.embedder.model);
  const method = req.fusion ?? defaults.fusion.method;
  const ratio = req.semanticRatio ?? defaults.fusion.semanticRatio;
  let floor: Floor = resolveFloor(req, deps.config.HYBRID_MIN_SIMILARITY);
  const fusionSource: Source = req.mode !== 'hybrid' ? 'none' : req.fusion || req.semanticRatio !== undefined ? 'request' : 'model_default';
  // The marks ("measured" with the figure, or "assumed" with the reason) of the defaults in force.
  const explain = (dropped: number) => ({
    embedding_model: deps.embedder.model,
    defaults_row: defaults.row,
    fusion: {
      source: fusionSource,
      basis: fusionSource === 'model_default' ? defaults.fusion.basis : null,
      note: fusionSource === 'model_default' ? defaults.fusion.note : null,
    },
    min_score: { ...floor, dropped },
    bm25: { k1: deps.config.BM25_K1, b: deps.config.BM25_B },
  });
  const typo = {
    enabled: req.mode !== 'vector' && (req.typoTolerance ?? deps.config.TYPO_TOLERANCE),
    source: req.typoTolerance === undefined ? 'setting' : 'request',
  } as const;
  const run = <T>(fn: (sql: Tx) => Promise<T>) => deps.reads.run(fn);
  const scope = { collectionIds, tags: req.tags, where: req.filter };
  // The one compilation of the request's tags and filter: every statement below embeds these.
  const cond = compileConditions(deps.sql, scope, deps.config.STATEMENT_TIMEOUT_MS);
  const answer = async (results: Hit[], o: Outcome, notes: Annotations = { spans: new Map() }) => ({
    query: req.query,
    count: results.length,
    results: results.map((r) => resultJson(r, req.explain, notes.spans.get(r.chunkId) ?? [])),
    mode: req.mode,
    fallback: o.fallback,
    fusion: { method: req.mode === 'hybrid' ? method : ('none' as const), semantic_ratio: req.mode === 'hybrid' ? ratio : null },
    correction: o.corrections.length ? shownCorrection(req.query, o.corrections, o.surface) : null,
    ...(results.length
      ? { reason: null, warnings: [] }
      : await blameOperators(
          await run((sql) =>
            explainEmpty(sql, cond, scope, { mode: req.mode, dropped: o.thresholdDropped ? { threshold: req.scoreThreshold! } : null }),
          ),
          req.query,
          async (words) => (await countResults(deps, { ...req, query: words, limit: 1 }, collectionIds)) > 0,
        )),
    ...(req.explain
      ? {
          explain: {
            ...explain(o.dropped),
            evidence: o.topic,
            typo_tolerance: {
              enabled: typo.enabled,
              source: typo.source,
              corrections: o.corrections.map((c) => ({ word: c.word, lexeme: c.from, correction: c.to, edits: c.edits, chunks: c.df })),
            },
          },
        }
      : {}),
    ...(req.facets ? { facets: notes.facets ?? Object.fromEntries(req.facets.map((f) => [f, []])) } : {}),
  });
  const none: Outcome = { fallback: null, dropped: 0, corrections: [], surface: new Map(), topic: null, thresholdDropped: false };
  if (!collectionIds.length) return { ...(await answer([], none)), fusion: { method, semantic_ratio: ratio } };

  // Found while the query is embedded; a failure is the text channel's (channelCandidates).
  const correcting: Promise<Correction[]> = typo.enabled
    ? deps.corrections.find(run, deps.config.TEXT_SEARCH_CONFIG, req.query, collectionIds)
    : Promise.resolve([]);
  correcting.catch(() => {});
  const { queryVector, fallback } = await embedQuery(deps, req);
  // Hybrid judges every query against the scope's background (judgeTopic below): taken while the
  // channels run, so a scope's first search (its sample: about 30 ms) waits for the slower of them.
  if (req.mode === 'hybrid' && queryVector) deps.backgrounds.get(run, collectionIds, queryVector.length).catch(() => {});
  const { text, vector, corrections, surface } = await channelCandidates(deps, req, cond, queryVector, correcting);
  const gated = await gateVector(floor, text, vector, {
    backgrounds: deps.backgrounds,
    run,
    collectionIds,
    queryVector,
    modelFloor: defaults.floor,
  });
  floor = gated.floor;
  // Rank fusion weighs a vector rank like a text rank whatever the similarity, so only evidence that
  // stands out from the background enters it; weighted fusion keeps every similarity as a tie-breaker
  // for text matches (gated too, the built-in model lost 0.005 nDCG@10 on NFCorpus: 0.325). Either
  // way, vector-only chunks below the floor are dropped.
  const fuseWith = req.mode === 'hybrid' && method === 'rrf' ? gated.evidence : vector;
  const relevant = keepRelevant(
    req.mode === 'text' || (req.mode === 'hybrid' && !queryVector)
      ? single(text, 'text')
      : req.mode === 'vector'
        ? single(fuseWith, 'vector')
        : method === 'rrf'
          ? rrf(text, fuseWith)
          : weighted(text, fuseWith, ratio),
    floor.value,
  ).kept;
  // Hybrid: nothing counts, whichever channel matched, when the query is not about the searched documents.
  const topic: Topic | null =
    req.mode === 'hybrid'
      ? judgeTopic(text, vector, queryVector ? await deps.backgrounds.get(run, collectionIds, queryVector.length) : null, queryVector)
      : null;
  const all = topic && !topic.on && !req.judgeOnly ? [] : relevant;
  const operatorOpts = { textConfig: deps.config.TEXT_SEARCH_CONFIG, timeoutMs: cond.timeoutMs };
  const { kept: operated } = await requireOperators(run, operatorOpts, req.query, all);
  const fused = atThreshold(operated, req.scoreThreshold);
  const rows = await run((sql) => hydrate(sql, fused.slice(0, req.maxChunksPerDocument ? fused.length : req.limit), cond));
  const outcome = {
    fallback,
    dropped: gated.dropped,
    corrections,
    surface,
    topic,
    thresholdDropped: operated.length > 0 && req.scoreThreshold !== undefined,
  };
  const page = capPerDocument(rows, req.maxChunksPerDocument).slice(0, req.limit);
  const notes = await annotate(run, cond, {
    query: req.query,
    textConfig: deps.config.TEXT_SEARCH_CONFIG,
    page,
    ranked: fused,
    facets: req.facets,
    extraLexemes: corrections.map((c) => ({ lexeme: c.to, nos: c.nos })),
  });
  return answer(page, outcome, notes);
}

/**
 * How many results a search finds, answered to no one (unmetered, without explain or facets): the
 * warm-up's searches (warm-up.ts), and an empty answer's search without the query's operators.
 */
export async function countResults(deps: AppDeps, req: SearchRequest, collectionIds: string[]): Promise<number> {
  return (await searchCollections(deps, { ...req, explain: false, facets: undefined }, collectionIds)).count;
}

/** No collection has this id: a search over it finds nothing. */
const NO_COLLECTION = '00000000-0000-0000-0000-000000000000';

/**
 * A search over no collection, then hydrate and highlights of no chunk: each statement a search
 * runs is planned on the connection that runs it, and finds nothing (the warm-up, warm-up.ts).
 * `mode` is text when the query embedder did not answer; `query` is one it embedded (queryCache).
 */
export async function searchNothing(deps: AppDeps, mode: SearchMode, query: string): Promise<void> {
  await searchCollections(deps, { query, mode, limit: 10 }, [NO_COLLECTION]);
  const cond = compileConditions(deps.sql, { collectionIds: [NO_COLLECTION] }, deps.config.STATEMENT_TIMEOUT_MS);
  await deps.reads.run(async (sql) => {
    await hydrate(sql, [{ chunkId: NO_COLLECTION, score: 0 }], cond);
    await highlightSpans(sql, { textConfig: deps.config.TEXT_SEARCH_CONFIG, timeoutMs: cond.timeoutMs }, query, [
      { chunkId: NO_COLLECTION, content: query, textConfig: null },
    ]);
  });
}

/** What an answer says besides its results. */
interface Outcome {
  fallback: 'text_only' | null;
  /** Vector-only chunks the relevance floor dropped. */
  dropped: number;
  corrections: Correction[];
  /** How each correction's lexeme is written in the searched text (typo-display.ts). */
  surface: Map<string, string>;
  topic: Topic | null;
  /** Results were found and score_threshold dropped every one. */
  thresholdDropped: boolean;
}

/**
 * The collections the search covers. Read-only work runs on the replica when there is one; a
 * collection the replica does not know may have been created a moment ago: the primary has the
 * last word before answering 404. (`collection` is a slug; the legacy `collection_id` alias may
 * also carry a uuid.)
 */
async function collectionsSearched(deps: AppDeps, caller: Caller, req: SearchRequest): Promise<string[]> {
  const refs = [...(req.collection ? [req.collection] : []), ...(req.collections ?? [])];
  const scope = (sql: Tx) => searchScope(sql, caller, refs);
  return deps.reads.run(scope).catch((err: unknown) => {
    if (refs.length && deps.reads.usingReplica && err instanceof AppError && err.code === 'COLLECTION_NOT_FOUND') return scope(deps.sql);
    throw err;
  });
}
