import type { Sql, Tx } from './client.js';

/** The transaction may or may not have committed, and the database cannot tell now: keep what it references. */
export class CommitOutcomeUnknownError extends Error {
  constructor(override readonly cause: unknown) {
    super('lost the connection around COMMIT; the transaction outcome is unknown');
    this.name = 'CommitOutcomeUnknownError';
  }
}

const RESOLVE_WITHIN_MS = 5000;

/**
 * Runs `fn` in a transaction, and settles the one ambiguous case: the connection dropping after
 * COMMIT was sent, when the reply (and with it the outcome) is lost although the transaction may
 * well have committed. The transaction's id is taken first; on such a failure PostgreSQL is asked,
 * on another connection, what became of it (pg_xact_status), so the caller never undoes side
 * effects of a transaction that committed.
 *
 * Returns `fn`'s value when the transaction committed (also when only the reply was lost); rethrows
 * the original error when it certainly did not; throws CommitOutcomeUnknownError when the database
 * cannot say (unreachable, or the transaction still in progress after a few seconds).
 */
export async function beginResolvingCommit<T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let xid: string | undefined;
  let commitSent = false;
  let value: T | undefined;
  try {
    await sql.begin(async (tx) => {
      xid = (await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`)[0]!.xid;
      value = await fn(tx);
      // postgres.js sends COMMIT right after this callback resolves.
      commitSent = true;
    });
    return value as T;
  } catch (err) {
    // Before COMMIT is sent, a failure always rolls back.
    if (!commitSent || !xid) throw err;
    const status = await transactionStatus(sql, xid);
    if (status === 'committed') return value as T;
    if (status === 'aborted') throw err;
    throw new CommitOutcomeUnknownError(err);
  }
}

/** 'committed', 'aborted', or undefined when it cannot be learned in time. */
async function transactionStatus(sql: Sql, xid: string): Promise<'committed' | 'aborted' | undefined> {
  const deadline = Date.now() + RESOLVE_WITHIN_MS;
  while (Date.now() < deadline) {
    const left = deadline - Date.now();
    const status = await Promise.race([
      sql<{ status: string | null }[]>`select pg_xact_status(${xid}::xid8) as status`.then(
        (r) => r[0]?.status ?? null,
        () => 'unreachable',
      ),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), left).unref()),
    ]);
    if (status === 'committed' || status === 'aborted') return status;
    if (status === 'timeout' || status === null) return undefined;
    // 'in progress' (the server has not yet noticed the lost connection) or a brief outage: ask again.
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}
