import type { OrgAdmission } from './limits/org-admission.js';
import type { WebhookFailureLog } from './webhooks/failure-log.js';
import type { ResolvedConfig } from './config.js';
import type { DatabaseAvailability } from './db/availability.js';
import type { ReadPool, Sql } from './db/client.js';
import type { EmbeddingProvider } from './embeddings/types.js';
import type { ExtractionPool } from './ingest/extract-pool.js';
import type { PermitLeases } from './limits/permit-leases.js';
import type { Logger } from './logger.js';
import type { QueryEmbeddingCache } from './search/query-cache.js';
import type { ScopeBackgrounds } from './search/background.js';
import type { CorrectionCache } from './search/correction-cache.js';
import type { BlobStore } from './storage/types.js';
import type { UsageLogWriter } from './usage/log-writer.js';

export type { RateTier } from './rate-tier.js';
import type { RateTier } from './rate-tier.js';

/** Who is calling, resolved by the auth middleware. */
export interface Caller {
  keyId: string;
  keyPrefix: string;
  userId: string;
  orgId: string;
  isFullAccess: boolean;
  isAdmin: boolean;
  tier: RateTier;
  via: 'key' | 'session';
}

export interface Clock {
  now(): Date;
}

export function systemClock(offsetMs = 0): Clock {
  return { now: () => new Date(Date.now() + offsetMs) };
}

/**
 * Everything a daemon holds, built once by createDeps (deps.ts) and passed in, so importing app.ts
 * does no I/O and no per-daemon state hides in a module. Two daemons in one process (tests) share nothing.
 */
export interface AppDeps {
  config: ResolvedConfig;
  /** The primary: through DATABASE_POOL_URL in an API process that has one, else DATABASE_URL. */
  sql: Sql;
  /** Read-only work that may trail the primary slightly: a replica when DATABASE_READ_URL is set (db/read-pool.ts). */
  reads: ReadPool;
  logger: Logger;
  clock: Clock;
  blobs: BlobStore;
  /** Used by the worker to embed chunks and by search to embed queries; loaded lazily on first use. */
  embedder: EmbeddingProvider;
  /** Request-log records, buffered and written in batches (usage/log-writer.ts). */
  usageLog: UsageLogWriter;
  /** Failed webhook deliveries, collapsed per endpoint in the log (webhooks/failure-log.ts). */
  webhookFailures: WebhookFailureLog;
  /** Recent query embeddings, so a repeated query costs no embedding call (search/query-cache.ts). */
  queryCache: QueryEmbeddingCache;
  /** Per-scope samples of chunk vectors the relevance floor judges vector-only hits against (search/background.ts). */
  backgrounds: ScopeBackgrounds;
  /** The words typo tolerance need not correct, per scope and vocabulary generation (search/correction-cache.ts). */
  corrections: CorrectionCache;
  /** Per-organization bound on concurrent search and list requests (limits/org-admission.ts). */
  admission: OrgAdmission;
  /** Whether PostgreSQL is reachable: 503 at once during an outage (db/availability.ts). */
  availability: DatabaseAvailability;
  /** The guard's counting: permit leases over one counting statement per request (limits/permit-leases.ts). */
  leases: PermitLeases;
  /** Text extraction threads of the job worker, started on demand (ingest/extract-pool.ts). */
  extraction: ExtractionPool;
}

/** What a search adds to its request's log record (REST /search and MCP search_documents). */
export interface SearchNote {
  query: string | null;
  resultCount: number | null;
  billable: boolean;
  /** Set by the MCP server when the request called a tool; other /mcp requests are protocol calls. */
  mcpToolCall: boolean;
}

/** Request-scoped values, on the Hono context. */
export interface AppEnv {
  Variables: {
    requestId: string;
    caller: Caller;
    logger: Logger;
    /** Date.now() when the request arrived: judges whether a failure spanned a database outage. */
    startedAt: number;
    /**
     * The signed-in user of an API route that also accepts the web session (download). Kept apart
     * from `caller` on purpose: the request log is filed by API key, and a session has none.
     */
    sessionCaller: Caller;
    /** Filled by a metered search (billing/quota.ts meterSearch), read by the request log (usage/middleware.ts). */
    searchNote: SearchNote;
  };
}
