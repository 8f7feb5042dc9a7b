import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;
/** A transaction or the pool: query functions accept either. */
export type Tx = postgres.TransactionSql<Record<string, never>> | Sql;

export function createSql(url: string, opts: { max?: number; applicationName?: string } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: opts.applicationName ?? 'docsift' },
    transform: { undefined: null },
  }) as unknown as Sql;
}
