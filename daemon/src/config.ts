import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseTrustProxy } from './net/client-ip.js';

// Booleans from env: only explicit spellings count, so a typo never silently enables a dev setting.
const envBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

// Same spellings, but unset means on: for safety features that only tests and benchmarks turn off.
const envBoolDefaultTrue = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === undefined || v === '' || v === 'true' || v === '1' || v === 'yes');

// An empty variable counts as unset: compose files pass `${VAR:-}` through as "".
const unsetIfEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/**
 * Two connections per core, at least 4 and at most 10 (the usual "cores × 2" pool of PostgreSQL
 * sizing guides). More connections than that do not add throughput on the cores there are: on 2
 * cores, 10 concurrent searches cost about 8 % more CPU each than 4 did, queued in the daemon.
 */
export function defaultPoolMax(cores: number): number {
  return Math.min(10, Math.max(4, 2 * cores));
}

const defaultDataDir = path.join(process.env.XDG_DATA_HOME ?? path.join(os.homedir(), '.local', 'share'), 'docsift');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Public base URL used in signed download links and printed at start. Defaults to http://HOST:PORT. */
  PUBLIC_URL: z.string().url().optional(),
  /** When unset, a private local PostgreSQL cluster is provisioned under DATA_DIR. */
  DATABASE_URL: z.string().optional(),
  /**
   * Optional: a pooler in transaction mode (pgbouncer) in front of the primary. The API's request
   * queries go through it; migrations and the job worker (LISTEN/NOTIFY, session state) always use
   * DATABASE_URL directly.
   */
  DATABASE_POOL_URL: unsetIfEmpty(z.string()),
  /** Optional: a streaming replica for read-only work (search, lists, usage reports, MCP reads). */
  DATABASE_READ_URL: unsetIfEmpty(z.string()),
  /** DATABASE_READ_URL is a pooler in transaction mode too. */
  DATABASE_READ_POOLED: envBool,
  DATA_DIR: z.string().default(defaultDataDir),
  /** `worker` only: serve GET /healthz and /readyz on this port (127.0.0.1 unless HOST says otherwise), for container health checks. */
  HEALTH_PORT: unsetIfEmpty(z.coerce.number().int().min(0).max(65535)),
  PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /** PostgreSQL connections per process; default defaultPoolMax() of this machine's cores. */
  DB_POOL_MAX: z.preprocess(
    (v) => (v === '' || v === undefined ? defaultPoolMax(os.availableParallelism()) : v),
    z.coerce.number().int().min(1).max(200),
  ),
  /** A connection attempt failing after this long (an unreachable database) makes API requests answer 503 instead of hanging. */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  /**
   * Longest one search or document-list statement may run: it is then cancelled and that request
   * answers 503 SERVICE_UNAVAILABLE (db/statement-timeout.ts). Searches take milliseconds (at 1M
   * chunks under a 1 % filter, 34.7 ms at p50: docs/performance.md), so only a pathological
   * statement, or one waiting on a lock (a reindex), reaches it.
   */
  STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * Search and list requests of one organization running at once while other organizations search
   * too (one did within the last second); default a quarter of DB_POOL_MAX (at least 1:
   * limits/org-admission.ts), so no organization can hold the whole pool. Alone, an organization
   * runs up to DB_POOL_MAX.
   */
  SEARCH_CONCURRENCY_PER_ORG: unsetIfEmpty(z.coerce.number().int().min(1).max(200)),
  /** Before the API listens, the query embedder answers once (search/warm-up.ts): the first search does not load the model. */
  SEARCH_WARM_UP: envBoolDefaultTrue,
  /** Requests of one organization waiting for a search slot (at most STATEMENT_TIMEOUT_MS); more answer 429. */
  SEARCH_QUEUE_PER_ORG: z.coerce.number().int().min(0).max(10_000).default(256),
  /** Secret for signed download URLs and other HMACs; generated and persisted under DATA_DIR when unset. */
  SIGNING_SECRET: z.string().min(32).optional(),

  EMBEDDING_PROVIDER: z.enum(['builtin', 'ollama', 'openai']).default('builtin'),
  OLLAMA_HOST: z.string().default('http://127.0.0.1:11434'),
  /** Ollama's model; EMBEDDING_MODEL is accepted too. Default nomic-embed-text. */
  OLLAMA_MODEL: unsetIfEmpty(z.string()),
  /** `openai`: any server speaking POST /v1/embeddings (OpenAI, Azure OpenAI, vLLM, TEI, LM Studio, llama.cpp, LiteLLM). */
  OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1'),
  /** Optional for local servers; required for the public OpenAI endpoint. */
  OPENAI_API_KEY: unsetIfEmpty(z.string()),
  /** Model name for `openai` (default text-embedding-3-small) and, when OLLAMA_MODEL is unset, for `ollama`. */
  EMBEDDING_MODEL: unsetIfEmpty(z.string()),
  /** `openai` only: sent as `dimensions` (models that shorten vectors); else detected from the first answer. */
  EMBEDDING_DIMENSIONS: unsetIfEmpty(z.coerce.number().int().min(1).max(16000)),
  /** Texts per embedding call; defaults to the provider's own (builtin 32, ollama 64, openai 2048 — OpenAI's limit). */
  EMBEDDING_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).optional(),
  /** `openai` only: tokens per request (default 300 000, OpenAI's limit). */
  EMBEDDING_BATCH_TOKENS: unsetIfEmpty(z.coerce.number().int().min(1)),
  /** `openai` only: longer inputs are truncated, with a warning (default 8191, OpenAI's per-input limit). */
  EMBEDDING_MAX_INPUT_TOKENS: unsetIfEmpty(z.coerce.number().int().min(1)),
  /**
   * Hybrid search counts a vector match only when its cosine similarity reaches this floor. Default:
   * unset, the background floor computed per query (daemon/src/search/relevance-floor.ts).
   */
  HYBRID_MIN_SIMILARITY: unsetIfEmpty(z.coerce.number().min(0).max(1)),

  /** Worker liveness: heartbeat period, and silence after which a worker's jobs are released to others. */
  WORKER_HEARTBEAT_MS: z.coerce.number().int().min(100).default(10_000),
  WORKER_STALE_MS: z.coerce.number().int().min(500).default(60_000),
  /** How often a running daemon checks that no newer docsift applied a breaking migration (it exits with status 3 if one did). */
  SCHEMA_WATCH_MS: z.coerce.number().int().min(100).default(10_000),
  /** Attempts of a document-processing job before the document is marked failed (exponential backoff between). */
  PROCESS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(25).default(5),
  /**
   * Per-document extraction limits. A document over one fails permanently (no retries) with a message
   * naming the setting. Memory is the heap of each extraction thread (one thread per concurrent job).
   */
  EXTRACT_MEMORY_MB: z.coerce.number().int().min(64).max(65_536).default(1024),
  EXTRACT_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  EXTRACT_MAX_PDF_PAGES: z.coerce.number().int().min(1).default(5000),
  /** Total inflated size of the XML inside a docx/xlsx/pptx/odt/ods/odp/epub, or of a PDF's FlateDecode streams but its images (bombs). */
  EXTRACT_MAX_UNPACKED_MB: z.coerce.number().int().min(1).max(4096).default(100),
  /** Characters of extracted text; chunking and embedding time grow with it. */
  EXTRACT_MAX_TEXT_CHARS: z.coerce.number().int().min(1000).default(10_000_000),
  CHUNK_TOKENS: z.coerce.number().int().min(32).max(8192).default(512),
  CHUNK_OVERLAP: z.coerce.number().min(0).max(0.5).default(0.15),
  /** HNSW search breadth: higher is more accurate and slower (recall measured by npm run bench:search). */
  HNSW_EF_SEARCH: z.coerce.number().int().min(10).max(1000).default(100),
  TEXT_SEARCH_CONFIG: z
    .string()
    .regex(/^[a-z_]+$/)
    .default('english'),
  /**
   * BM25's term-frequency saturation (k1) and length normalisation (b): the only place their
   * defaults are defined (1.2 / 0.75, chosen on SciFact and NFCorpus with migration 119's
   * tokenization; the figures are in docs/performance.md). Scores use them at once; the lists'
   * impact order follows them after `docsift-daemon reindex` (see daemon/src/indexing/bm25-params.ts).
   */
  BM25_K1: z.coerce.number().min(0).max(10).default(1.2),
  BM25_B: z.coerce.number().min(0).max(1).default(0.75),
  /**
   * Typo tolerance in the text channel: a query word the searched collections do not hold is read as
   * one they do within 1 edit (5–8 letters; 4 by an insertion) or 2 (9 or more). A request's `typo_tolerance` overrides
   * it (daemon/src/search/typo-tolerance.ts).
   */
  TYPO_TOLERANCE: envBoolDefaultTrue,

  /** Largest request body on /api/v1 and /mcp other than a multipart upload; larger ones get 413 PAYLOAD_TOO_LARGE while streaming. */
  MAX_JSON_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(1024 * 1024),
  /** Largest text document (`content` of source_type=text, in UTF-8 bytes), sent as JSON or multipart. */
  MAX_TEXT_DOCUMENT_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(50 * 1024 * 1024)
    .default(2 * 1024 * 1024),
  /**
   * Days a deleted document's (or a replaced) stored file is kept before purge_blobs deletes it; also
   * the point-in-time recovery window with PITR_REPO (a restore inside it finds every file its rows reference).
   */
  BLOB_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  /**
   * Point-in-time recovery of the embedded PostgreSQL: pgBackRest archives every WAL segment and keeps
   * base backups here (a directory, or s3://bucket/prefix with the S3_* settings over https). Kept
   * under DATA_DIR/pgbackrest once set, so later processes without it keep archiving there.
   */
  PITR_REPO: unsetIfEmpty(z.string()),
  /** CA certificate pgBackRest trusts for an S3 endpoint with a private certificate. */
  PITR_S3_CA_FILE: unsetIfEmpty(z.string()),
  /** Stored files that no document references (left by a crash mid-upload) are deleted by the hourly sweep once this old. */
  ORPHAN_BLOB_GRACE_HOURS: z.coerce.number().int().min(1).max(8760).default(24),

  STORAGE: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ENDPOINT: unsetIfEmpty(z.string().url()),
  /** Endpoint download links are signed for, when clients reach the store by another address than S3_ENDPOINT (e.g. inside Docker). */
  S3_PUBLIC_ENDPOINT: unsetIfEmpty(z.string().url()),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: envBool,

  /**
   * Reverse proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For is believed for the
   * client address. Unset: none; the TCP peer is the client.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseTrustProxy(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** Development only: allow webhook and URL-document targets on private/loopback addresses. */
  ALLOW_PRIVATE_URLS: envBool,
  /** Webhooks: first retry delay (doubling, ±20% jitter: 30 s, 1, 2, 4, 8 min) and per-attempt timeout. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Per-user request limits (minute/day/month, by key tier). Off only for tests and benchmarks. */
  RATE_LIMITS_ENABLED: envBoolDefaultTrue,
  /** Requests per minute, per client address and API process, that carry no valid key (401s, the public schema and docs). */
  ANONYMOUS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** Request log, usage statistics and plan quotas. Off only for benchmarks: nothing is recorded or enforced. */
  METERING_ENABLED: envBoolDefaultTrue,
  /** Raw request-log rows older than this are deleted daily; the daily rollups are kept. */
  USAGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** The request log is written in batches: every USAGE_FLUSH_MS, or at once when USAGE_FLUSH_ROWS are waiting. */
  USAGE_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  USAGE_FLUSH_ROWS: z.coerce.number().int().min(1).max(5000).default(500),
  /** Billing: invoices go to Stripe for organizations with a stripe_customer_id when this is set. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** Testing only: Stripe API base URL (e.g. a local stand-in); default https://api.stripe.com. */
  STRIPE_API_URL: z.string().url().optional(),
  /** Testing only: shifts the service clock (ms) for purge, billing and expiry jobs. */
  CLOCK_OFFSET_MS: z.coerce.number().int().default(0),
});

export type Config = z.infer<typeof configSchema>;

/**
 * The configuration a daemon runs with: the database URL and the signing secret resolved (main.ts
 * provisions a local PostgreSQL and generates the secret when they are unset), so no use of them
 * needs a non-null assertion.
 */
export type ResolvedConfig = Config & { DATABASE_URL: string; SIGNING_SECRET: string };

/** A configuration whose database URL and signing secret are set (by the environment or a test), resolved. */
export function resolvedConfig(config: Config): ResolvedConfig {
  const { DATABASE_URL, SIGNING_SECRET } = config;
  if (!DATABASE_URL || !SIGNING_SECRET) throw new ConfigError('DATABASE_URL and SIGNING_SECRET must be resolved before the daemon starts');
  return { ...config, DATABASE_URL, SIGNING_SECRET };
}

/**
 * The base URL printed links start with, without a trailing slash: PUBLIC_URL, else
 * http://HOST:PORT with an IPv6 host in brackets and the IPv4 wildcard as loopback. `port` is the
 * port actually bound (PORT 0 picks one).
 */
export function publicUrl(config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>, port: number = config.PORT): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/+$/, '');
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${port}`;
}

export class ConfigError extends Error {}

/** Settings that only make sense together: reported like field errors. */
function crossCheck(c: Config): string[] {
  const issues: string[] = [];
  for (const k of ['DATABASE_POOL_URL', 'DATABASE_READ_URL'] as const)
    if (c[k] && !c.DATABASE_URL) issues.push(`${k}: needs DATABASE_URL (the primary, connected directly) as well`);
  if (c.PITR_REPO && c.DATABASE_URL)
    issues.push('PITR_REPO: archives the embedded PostgreSQL only; with DATABASE_URL set up recovery on that server (docs/operations.md)');
  if (c.EMBEDDING_PROVIDER === 'openai' && !c.OPENAI_API_KEY && new URL(c.OPENAI_BASE_URL).hostname === 'api.openai.com')
    issues.push('OPENAI_API_KEY: required for api.openai.com (only local servers work without a key)');
  if (c.EMBEDDING_PROVIDER !== 'openai')
    for (const k of ['EMBEDDING_DIMENSIONS', 'EMBEDDING_BATCH_TOKENS', 'EMBEDDING_MAX_INPUT_TOKENS'] as const)
      if (c[k] !== undefined) issues.push(`${k}: only EMBEDDING_PROVIDER=openai uses this setting`);
  return issues;
}

/** Parses the environment once; throws a readable error listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  const lines = result.success ? crossCheck(result.data) : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  if (lines.length) throw new ConfigError(`Invalid configuration:\n${lines.map((l) => `  ${l}`).join('\n')}`);
  return result.data!;
}
