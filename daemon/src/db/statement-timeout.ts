import type postgres from 'postgres';
import { AppError } from '../errors.js';

/** PostgreSQL's query_canceled: what a cancelled statement fails with. */
const QUERY_CANCELED = '57014';

/**
 * Runs one search or list statement, cancelled once it has run `ms` (STATEMENT_TIMEOUT_MS). The
 * request then answers 503 SERVICE_UNAVAILABLE for itself alone: a slow statement is its own cost,
 * not an outage, so it never reaches the availability tracker (app.ts sends a 503 as it is, without
 * probing) and other requests are served as usual.
 *
 * The timer is the client's: a `SET LOCAL statement_timeout` needs a transaction around the
 * statement, two more round trips and about 0.1 ms of daemon CPU each (measured with postgres.js
 * on the test cluster), several times per search. When it fires, the check waits for the I/O
 * already received (setImmediate), so a statement whose answer has arrived is never cancelled.
 * PostgreSQL's cancel request names a connection, not a statement: only an answer still on the
 * wire when the cancel leaves can let it reach the statement queued next on that connection.
 */
export async function withinTimeout<T extends readonly postgres.MaybeRow[]>(
  statement: postgres.PendingQuery<T>,
  ms: number,
): Promise<postgres.RowList<T>> {
  let settled = false;
  let cancelled = false;
  const timer = setTimeout(
    () =>
      setImmediate(() => {
        if (settled) return;
        cancelled = true;
        statement.cancel();
      }),
    ms,
  );
  try {
    return await statement;
  } catch (err) {
    if (cancelled && (err as { code?: unknown }).code === QUERY_CANCELED) throw new StatementTimeoutError(ms);
    throw err;
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}

/** A statement cancelled by withinTimeout: 503 SERVICE_UNAVAILABLE, naming the setting. */
export class StatementTimeoutError extends AppError {
  constructor(readonly ms: number) {
    super(
      'SERVICE_UNAVAILABLE',
      `The database took longer than ${ms} ms (STATEMENT_TIMEOUT_MS) to answer this request, so it was stopped; narrow it (a more selective filter, fewer collections) or try again later.`,
    );
  }
}
