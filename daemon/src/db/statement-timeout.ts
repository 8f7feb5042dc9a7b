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
export function withinTimeout<T extends readonly postgres.MaybeRow[]>(
  statement: postgres.PendingQuery<T>,
  ms: number,
): Promise<postgres.RowList<T>> {
  return cancelledAfter(ms, statement, () => statement);
}

/**
 * A cursor's batches (`rows` each), each fetched within `ms`: every batch is one execution of the
 * statement's portal, so a stream of any length is bounded batch by batch.
 */
export async function* batchesWithinTimeout<T extends readonly postgres.MaybeRow[]>(
  statement: postgres.PendingQuery<T>,
  rows: number,
  ms: number,
): AsyncGenerator<NonNullable<T[number]>[]> {
  const batches = statement.cursor(rows)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await cancelledAfter(ms, statement, () => batches.next());
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await batches.return?.();
  }
}

/** Awaits `work`, cancelling `statement` once it has run `ms`. */
async function cancelledAfter<R>(ms: number, statement: { cancel(): void }, work: () => Promise<R>): Promise<R> {
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
    return await work();
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
