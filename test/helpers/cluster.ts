// The test PostgreSQL cluster, as `npm test` (scripts/test.ts) and the benchmarks (test/bench/lib/env.ts)
// both find, start and clean it: one bootstrap, so the two never disagree on where it lives.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type postgres from 'postgres';
import { createSql } from '../../daemon/src/db/client.js';
import { migrate } from '../../daemon/src/db/migrate.js';
import { ensureLocalPostgres } from '../../daemon/src/local-pg/provision.js';
import { createLogger } from '../../daemon/src/logger.js';
import { migrateWorkerSchema } from '../../daemon/src/worker/runner.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Admin URL (the `postgres` database) of the test cluster: DOCSIFT_TEST_ADMIN_URL when set, else
 * the worktree's private cluster under .docsift/test-pg on DOCSIFT_TEST_PG_PORT, provisioned and
 * started on first use (it keeps running afterwards).
 */
export async function testClusterAdminUrl(log: (message: string) => void): Promise<string> {
  if (process.env.DOCSIFT_TEST_ADMIN_URL) return process.env.DOCSIFT_TEST_ADMIN_URL;
  const { databaseUrl } = await ensureLocalPostgres({
    dataDir: path.join(repoRoot, '.docsift', 'test-pg'),
    port: Number(process.env.DOCSIFT_TEST_PG_PORT ?? 54339),
    database: 'postgres',
    log,
  });
  return databaseUrl;
}

/** Applies the schema migrations and graphile-worker's to a database. */
export async function migrateDatabase(url: string): Promise<void> {
  const sql = createSql(url, { max: 1 });
  try {
    await migrate(sql);
  } finally {
    await sql.end();
  }
  await migrateWorkerSchema(url, createLogger('warn'));
}

/**
 * Drops the databases of test and benchmark processes that are gone (the owning pid is part of
 * their name: `<label>_p<pid base 36>_<8 hex>`), and templates other than `keepTemplate` when given.
 * Templates of other migration sets may be in use by a concurrent run: they are never forced.
 */
export async function dropStaleDatabases(admin: postgres.Sql, opts: { keepTemplate?: string } = {}): Promise<void> {
  const dbs = await admin<
    { datname: string }[]
  >`select datname from pg_database where datname ~ '^[a-z0-9_]+_p[0-9a-z]+_[0-9a-f]{8}$' or datname ~ '^tpl_'`;
  for (const { datname } of dbs) {
    const pid = /_p([0-9a-z]+)_[0-9a-f]{8}$/.exec(datname)?.[1];
    const stale = pid ? !processAlive(parseInt(pid, 36)) : opts.keepTemplate !== undefined && datname !== opts.keepTemplate;
    if (stale) await admin.unsafe(`drop database if exists "${datname}"${pid ? ' with (force)' : ''}`).catch(() => {});
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}
