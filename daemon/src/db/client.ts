import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;
/** A transaction or the pool: query functions accept either. */
export type Tx = postgres.TransactionSql<Record<string, never>> | Sql;

export function createSql(url: string, opts: { max?: number; applicationName?: string; hnswEfSearch?: number } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
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
