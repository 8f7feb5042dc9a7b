import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;
/** A transaction or the pool: query functions accept either. */
export type Tx = postgres.TransactionSql<Record<string, never>> | Sql;

/** Connecting may take this long before the attempt fails (and an API request answers 503). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

export function createSql(
  url: string,
  opts: { max?: number; applicationName?: string; hnswEfSearch?: number; connectTimeoutMs?: number } = {},
): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    idle_timeout: 30,
    connect_timeout: (opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS) / 1000,
    // postgres.js delays each reconnect after a failed one by up to 20 s by default, and a query
    // queued on that connection waits it out: during an outage requests hung for 19 s. Reconnects are
    // only ever made for a waiting query, and the API stops sending queries once it knows the
    // database is down (db/availability.ts), so a short delay cannot turn into a reconnect storm.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    onnotice: () => {},
    // pgvector settings travel in the startup packet, so every pooled connection has them without a
    // per-query SET or transaction. iterative_scan keeps filtered HNSW queries from returning too few rows.
    connection: {
      application_name: opts.applicationName ?? 'docsift',
      'hnsw.ef_search': String(opts.hnswEfSearch ?? 100),
      'hnsw.iterative_scan': 'relaxed_order',
    } as Record<string, string>,
    transform: { undefined: null },
  }) as unknown as Sql;
}
