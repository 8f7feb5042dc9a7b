import { WebhookFailureLog } from './webhooks/failure-log.js';
import type { ResolvedConfig } from './config.js';
import { DatabaseAvailability } from './db/availability.js';
import { createSql } from './db/client.js';
import { createReadPool } from './db/read-pool.js';
import { createEmbeddingProvider, embeddingConfigFrom } from './embeddings/index.js';
import { ExtractionPool } from './ingest/extract-pool.js';
import { defaultSearchConcurrency, OrgAdmission } from './limits/org-admission.js';
import { PermitLeases } from './limits/permit-leases.js';
import { directListener } from './limits/reclaim.js';
import type { Logger } from './logger.js';
import { QueryEmbeddingCache } from './search/query-cache.js';
import { ScopeBackgrounds } from './search/background.js';
import { CorrectionCache } from './search/correction-cache.js';
import { extractLimits } from './ingest/extract-limits.js';
import { createBlobStore } from './storage/index.js';
import { systemClock, type AppDeps, type Clock } from './types.js';
import { UsageLogWriter } from './usage/log-writer.js';

/** Query embeddings kept per daemon (a few MB at 768 dimensions). */
const QUERY_CACHE_ENTRIES = 2000;

/**
 * Builds everything a daemon holds. Nothing here does I/O: the pool connects, the embedding model
 * loads and the availability probe runs only on first use; extraction threads start with the job
 * worker (server.ts), or on first use.
 */
export function createDeps(config: ResolvedConfig, logger: Logger, opts: { clock?: Clock; api?: boolean } = {}): AppDeps {
  // Which URL each part uses (docs/deploying.md): API requests go through the pooler
  // when there is one; migrations and the job worker connect directly; read-only work may go to a replica.
  const poolUrl = opts.api ? config.DATABASE_POOL_URL : undefined;
  config = { ...config, DATABASE_POOL_URL: poolUrl };
  const sqlOptions = { max: config.DB_POOL_MAX, hnswEfSearch: config.HNSW_EF_SEARCH, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS };
  const sql = createSql(poolUrl ?? config.DATABASE_URL, { ...sqlOptions, pooled: !!poolUrl });
  const readUrl = opts.api ? config.DATABASE_READ_URL : undefined;
  const embedder = createEmbeddingProvider(embeddingConfigFrom(config, logger));
  const clock = opts.clock ?? systemClock(config.CLOCK_OFFSET_MS);
  return {
    config,
    sql,
    reads: createReadPool(sql, logger, readUrl ? { url: readUrl, pooled: config.DATABASE_READ_POOLED, sqlOptions } : undefined),
    logger,
    clock,
    blobs: createBlobStore(config),
    embedder,
    usageLog: new UsageLogWriter(sql, logger, { flushMs: config.USAGE_FLUSH_MS, flushRows: config.USAGE_FLUSH_ROWS }),
    queryCache: new QueryEmbeddingCache(QUERY_CACHE_ENTRIES),
    webhookFailures: new WebhookFailureLog(logger),
    backgrounds: new ScopeBackgrounds(config.STATEMENT_TIMEOUT_MS),
    corrections: new CorrectionCache(),
    admission: new OrgAdmission({
      perOrg: config.SEARCH_CONCURRENCY_PER_ORG ?? defaultSearchConcurrency(config.DB_POOL_MAX),
      alone: config.DB_POOL_MAX,
      contendedMs: 1000,
      queue: config.SEARCH_QUEUE_PER_ORG,
      waitMs: config.STATEMENT_TIMEOUT_MS,
    }),
    // The database this process's requests use: the pooler when the API goes through one.
    availability: new DatabaseAvailability(poolUrl ?? config.DATABASE_URL, logger, { pooled: !!poolUrl }),
    // Held permits are asked back over LISTEN/NOTIFY, on a connection of its own to the database itself.
    leases: new PermitLeases(sql, () => clock.now(), { listener: directListener(config.DATABASE_URL) }),
    // A thread per concurrent job, so one slow document never delays another; idle threads exit.
    extraction: new ExtractionPool({
      threads: config.WORKER_CONCURRENCY,
      memoryMb: config.EXTRACT_MEMORY_MB,
      timeoutMs: config.EXTRACT_TIMEOUT_MS,
      ...extractLimits(config),
    }),
  };
}

/**
 * Releases what createDeps built, the pool last. The HTTP server and the job worker must have
 * stopped: the request-log records still buffered are written first, while the pool is open.
 */
export async function closeDeps(deps: AppDeps, opts: { timeoutSec?: number } = {}): Promise<void> {
  await deps.usageLog.close();
  deps.webhookFailures.flush();
  // Held permits go back while the pool is open, so other daemons can admit them.
  await deps.leases.close().catch(() => {});
  await deps.availability.close();
  await deps.extraction.close();
  await deps.embedder.close();
  deps.blobs.close();
  await deps.reads.close().catch(() => {});
  await deps.sql.end({ timeout: opts.timeoutSec ?? 5 });
}
