// docsift's side of the benchmark: the test queries through POST /api/v1/search/ (the real API,
// capped at limit 50), and through the same search() service in-process for Recall@100, which
// needs more results than the API hands out.
import type { AppDeps, Caller } from '../../../daemon/src/types.js';
import { search, type SearchRequest } from '../../../daemon/src/search/service.js';
import type { ApiCall } from '../lib/http.js';
import { beirIdFromTags, type TestQuery } from './dataset.js';
import { dedupeDocs } from './metrics.js';
import type { Mode } from './peers/types.js';

export interface OurConfig {
  label: string;
  mode: Mode;
  fusion?: 'rrf' | 'weighted';
  semanticRatio?: number;
  /** The relevance floor (`min_score`); unset: the model's default. */
  minScore?: number;
}

export interface RunOutput {
  /** query id → document ids, best first */
  runs: Map<string, string[]>;
  latenciesMs: number[];
  /** Responses flagged `fallback` (hybrid served text-only). */
  fallbacks: number;
  /** The fusion the API reports it used (hybrid only). */
  fusion?: { method: string; semantic_ratio: number | null };
}

interface ApiResult {
  tags: string[];
}
export interface ApiResponse {
  results: ApiResult[];
  /** The spelling correction the answer reports, when it made one. */
  correction?: unknown;
  fallback: string | null;
  fusion: { method: string; semantic_ratio: number | null };
}

/** The API's maximum page. */
export const API_LIMIT = 50;

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, concurrency) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/**
 * One configuration over all queries through HTTP. `max_chunks_per_document: 1` makes the API do the
 * best-chunk-per-document mapping itself, so the 50 results are 50 distinct documents.
 */
export async function runHttp(
  api: ApiCall,
  collection: string,
  queries: TestQuery[],
  cfg: OurConfig,
  concurrency = 2,
  onBody?: (body: ApiResponse) => void,
): Promise<RunOutput> {
  const out: RunOutput = { runs: new Map(), latenciesMs: [], fallbacks: 0 };
  await pool(queries, concurrency, async (q) => {
    const json: Record<string, unknown> = { query: q.text, collection, limit: API_LIMIT, mode: cfg.mode, max_chunks_per_document: 1 };
    if (cfg.fusion) json.fusion = cfg.fusion;
    if (cfg.semanticRatio !== undefined) json.semantic_ratio = cfg.semanticRatio;
    if (cfg.minScore !== undefined) json.min_score = cfg.minScore;
    const r = await api<ApiResponse>('POST', '/api/v1/search/', { json });
    if (r.status !== 200)
      throw new Error(`search ${cfg.label} for query ${q.id}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
    out.latenciesMs.push(r.ms);
    if (r.body.fallback) out.fallbacks++;
    out.fusion ??= r.body.fusion;
    onBody?.(r.body);
    out.runs.set(q.id, dedupeDocs(r.body.results.map((x) => beirIdFromTags(x.tags))));
  });
  return out;
}

/**
 * The same configuration through the service function with a deeper limit: 200 chunks, folded to
 * documents and cut at `k`. Each channel then contributes 200 candidates instead of the API's 100,
 * which only matters for the tail this measures.
 */
export async function runInProcess(
  deps: AppDeps,
  caller: Caller,
  collection: string,
  queries: TestQuery[],
  cfg: OurConfig,
  k = 100,
): Promise<RunOutput> {
  const out: RunOutput = { runs: new Map(), latenciesMs: [], fallbacks: 0 };
  for (const q of queries) {
    const req: SearchRequest = {
      query: q.text.trim(),
      collection,
      limit: 2 * k,
      mode: cfg.mode,
      fusion: cfg.fusion,
      semanticRatio: cfg.semanticRatio,
      minScore: cfg.minScore,
    };
    const started = performance.now();
    const r = await search(deps, caller, req);
    out.latenciesMs.push(performance.now() - started);
    if (r.fallback) out.fallbacks++;
    out.runs.set(
      q.id,
      dedupeDocs(
        r.results.map((x) => beirIdFromTags(x.tags)),
        k,
      ),
    );
  }
  return out;
}
