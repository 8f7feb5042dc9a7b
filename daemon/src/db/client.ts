import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;
/** A transaction or the pool: query functions accept either. */
export type Tx = postgres.TransactionSql<Record<string, never>> | Sql;

/** Connecting may take this long before the attempt fails (and an API request answers 503). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

/**
 * Settings every search needs; per connection, or per transaction behind a pooler. `jit` off: the
 * daemon's statements are short, and PostgreSQL compiles a statement with LLVM once its estimated
 * cost passes jit_above_cost, counting branches that never run. At 1M chunks the vector search's
 * skipped exact branch crossed it, and each search paid 20-40 ms of compilation for a 2-3 ms HNSW
 * walk (docs/performance.md, "JIT at a million chunks").
 */
function searchSettings(hnswEfSearch: number | undefined): Record<string, string> {
  return { 'hnsw.ef_search': String(hnswEfSearch ?? 100), 'hnsw.iterative_scan': 'relaxed_order', jit: 'off' };
}
const pooledSettings = new WeakMap<object, Record<string, string>>();

export interface SqlOptions {
  max?: number;
  applicationName?: string;
  hnswEfSearch?: number;
  connectTimeoutMs?: number;
  /**
   * The URL is a pooler in transaction mode (pgbouncer `pool_mode = transaction`): consecutive
   * statements may run on different server connections. So no prepared statements (a statement
   * prepared on one connection does not exist on the next), and no settings in the startup packet
   * (pgbouncer refuses parameters it does not know): searches set them per transaction instead.
   */
  pooled?: boolean;
}

export function createSql(url: string, opts: SqlOptions = {}): Sql {
  const settings = searchSettings(opts.hnswEfSearch);
  const sql = postgres(url, {
    max: opts.max ?? 10,
    idle_timeout: 30,
    connect_timeout: (opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS) / 1000,
    // postgres.js delays each reconnect after a failed one by up to 20 s by default, and a query
    // queued on that connection waits it out: during an outage requests hung for 19 s. Reconnects are
    // only ever made for a waiting query, and the API stops sending queries once it knows the
    // database is down (db/availability.ts), so a short delay cannot turn into a reconnect storm.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    onnotice: () => {},
    ...(opts.pooled ? { prepare: false } : {}),
    // The settings travel in the startup packet, so every pooled connection has them without a
    // per-query SET or transaction. iterative_scan keeps filtered HNSW queries from returning too few rows.
    connection: {
      application_name: opts.applicationName ?? 'docsift',
      ...(opts.pooled ? {} : settings),
    } as Record<string, string>,
    transform: { undefined: null },
  }) as unknown as Sql;
  if (opts.pooled) pooledSettings.set(sql, settings);
  return sql;
}

/**
 * Runs `fn` where the search settings (hnsw.ef_search, iterative scan, jit off) are in force: on a direct
 * connection they already are (startup packet); behind a transaction pooler, `fn` runs in a
 * transaction that sets them locally, so they never leak to another client's server connection.
 */
export function withSearchSettings<T>(sql: Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const settings = pooledSettings.get(sql);
  if (!settings || !('begin' in sql)) return fn(sql);
  return (sql as Sql).begin(async (tx) => {
    for (const [name, value] of Object.entries(settings)) await tx`select set_config(${name}, ${value}, true)`;
    return fn(tx);
  }) as Promise<T>;
}

/** Where read-only work runs (a replica or the primary): see db/read-pool.ts. Declared here so AppDeps needs no import of the pool's code. */
export interface ReadPool {
  /** Runs the read-only `fn` on the replica, or on the primary (no replica, replica down). */
  run<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** Streams rows from `open` on the replica; falls back to the primary only before the first row. */
  stream<T>(open: (sql: Sql) => AsyncIterable<T>): AsyncGenerator<T>;
  /** Whether reads currently go to a replica. */
  readonly usingReplica: boolean;
  close(): Promise<void>;
}
