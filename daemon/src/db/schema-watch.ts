// A running daemon's check that no newer docsift has applied a breaking migration under it: such a
// schema fails this code's reads (migration 118 dropped a column every document read used), so the
// daemon stops instead of answering errors (graphile-worker's `--! breaking-change` behaviour).
import type { Logger } from '../logger.js';
import type { Sql } from './client.js';
import { listMigrations, SchemaTooNewError } from './migrate.js';

export interface SchemaWatch {
  stop(): void;
}

/**
 * Every `intervalMs`, one indexed read of schema_migrations; the first breaking migration this code
 * does not know calls `onTooNew` once and the watch ends. A failed read (the database is down) is
 * skipped: the next tick asks again.
 */
export async function watchSchema(
  sql: Sql,
  opts: { intervalMs: number; logger: Logger; onTooNew: (err: SchemaTooNewError) => void },
): Promise<SchemaWatch> {
  const known = (await listMigrations()).map((m) => m.version);
  const highest = Math.max(0, ...known);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  async function tick(): Promise<void> {
    try {
      const rows = await sql<{ version: number; name: string }[]>`
        select version, name from schema_migrations where breaking and version > ${highest} order by version`;
      if (rows.length && !stopped) {
        stopped = true;
        opts.onTooNew(new SchemaTooNewError(rows, highest));
        return;
      }
    } catch (err) {
      opts.logger.debug({ err }, 'schema check skipped: the database did not answer');
    }
    schedule();
  }
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(tick, opts.intervalMs);
    timer.unref();
  }
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
