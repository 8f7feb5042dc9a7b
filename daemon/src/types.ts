import type { Config } from './config.js';
import type { ReadPool, Sql } from './db/client.js';
import type { Logger } from './logger.js';
import type { EmbeddingProvider } from './embeddings/types.js';
import type { BlobStore } from './storage/types.js';

export type RateTier = 'free' | 'basic' | 'pro';

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

/** Everything the HTTP app needs; built in main.ts (or by tests) and passed in, so importing app.ts does no I/O. */
export interface AppDeps {
  config: Config;
  /** The primary: through DATABASE_POOL_URL in an API process that has one, else DATABASE_URL. */
  sql: Sql;
  /** Read-only work that may trail the primary slightly: a replica when DATABASE_READ_URL is set (db/read-pool.ts). */
  reads: ReadPool;
  logger: Logger;
  clock: Clock;
  blobs: BlobStore;
  /** Used by the worker to embed chunks and by search to embed queries; loaded lazily on first use. */
  embedder: EmbeddingProvider;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    caller: Caller;
    logger: Logger;
  };
}
