import type { Logger } from '../logger.js';
import { DatabaseAvailability, isDatabaseUnavailable } from './availability.js';
import { createSql, type ReadPool, type Sql, type SqlOptions } from './client.js';

export type { ReadPool } from './client.js';

// A query the standby cancelled because replay needed its rows (hot-standby conflict): the primary answers it.
const STANDBY_CONFLICT = '40001';

/**
 * Where read-only work runs: a streaming replica (DATABASE_READ_URL) when one is configured, else
 * the primary. Only work that may see data a little behind the primary comes here (search, lists,
 * usage reports, MCP reads): replay on a replica trails the primary by milliseconds to seconds.
 * Anything that must read its own writes (a document right after its upload, a key right after a
 * rotation or revocation, rate limits, quotas) uses the primary pool directly.
 *
 * When the replica is unreachable, reads go to the primary: the call that found it down is run
 * again there (reads are safe to repeat), one warning is logged, and a probe brings the replica
 * back into use once it answers (logged once). Clients see no error unless the primary fails too,
 * which the primary's own availability tracker turns into 503.
 */
export function createReadPool(primary: Sql, logger: Logger, replica?: { url: string; pooled: boolean; sqlOptions: SqlOptions }): ReadPool {
  if (!replica)
    return {
      run: (fn) => fn(primary),
      async *stream(open) {
        yield* open(primary);
      },
      usingReplica: false,
      close: async () => {},
    };
  const sql = createSql(replica.url, { ...replica.sqlOptions, pooled: replica.pooled, applicationName: 'docsift-read' });
  const tracker = new DatabaseAvailability(replica.url, logger, {
    pooled: replica.pooled,
    messages: {
      down: 'read replica unreachable: reads go to the primary until it is back',
      up: 'read replica reachable again: reads go to it',
      level: 'warn',
    },
  });
  /** Whether a failed read is repeated on the primary. Only an unreachable replica (or a standby conflict) moves it. */
  const movesToPrimary = async (err: unknown) =>
    (err as { code?: string }).code === STANDBY_CONFLICT || (isDatabaseUnavailable(err) && (await tracker.explains(err)));
  return {
    get usingReplica() {
      return !tracker.isDown;
    },
    async run(fn) {
      if (tracker.isDown) return fn(primary);
      try {
        return await fn(sql);
      } catch (err) {
        if (!(await movesToPrimary(err))) throw err;
        return fn(primary);
      }
    },
    async *stream(open) {
      if (tracker.isDown) {
        yield* open(primary);
        return;
      }
      const rows = open(sql)[Symbol.asyncIterator]();
      let first: IteratorResult<Awaited<ReturnType<typeof rows.next>>['value']>;
      try {
        first = await rows.next();
      } catch (err) {
        if (!(await movesToPrimary(err))) throw err;
        yield* open(primary);
        return;
      }
      for (let r = first; !r.done; r = await rows.next()) yield r.value;
    },
    async close() {
      await tracker.close();
      await sql.end({ timeout: 5 });
    },
  };
}
