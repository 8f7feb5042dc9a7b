import { isDatabaseUnavailable } from '../db/availability.js';
import type { Sql } from '../db/client.js';
import type { Logger } from '../logger.js';

/** One authenticated request, as the request log stores it. */
export interface RequestRecord {
  ts: Date;
  organizationId: string;
  userId: string;
  keyId: string;
  method: string;
  /** Route pattern, e.g. /api/v1/documents/{uuid} (never the raw path). */
  endpoint: string;
  status: number;
  durationUs: number;
  query: string | null;
  resultCount: number | null;
  billable: boolean;
}

export interface WriterOptions {
  flushMs: number;
  flushRows: number;
  /** Beyond this many unwritten rows (database down for long), the oldest are dropped and logged. */
  maxBuffered?: number;
}

const MAX_QUERY_CHARS = 1000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text PostgreSQL and JSON can carry: no NUL, no lone surrogates, bounded length. */
function clean(s: string): string {
  return s
    .slice(0, MAX_QUERY_CHARS)
    .replace(/\u0000/g, '')
    .replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * Writes the raw rows and their daily rollups in ONE statement, so the rollups always agree with
 * the log. Rollup rows are upserted in (key, day) order so concurrent flushes (other processes)
 * lock them in the same order and cannot deadlock. One fixed statement text: rows travel as JSON.
 */
export async function writeRecords(sql: Sql, records: RequestRecord[]): Promise<void> {
  const rows = records.map((r) => ({
    ts: r.ts.toISOString(),
    organization_id: r.organizationId,
    user_id: r.userId,
    key_id: r.keyId,
    method: r.method,
    endpoint: clean(r.endpoint),
    status: r.status,
    duration_us: Math.max(0, Math.min(2_147_483_647, Math.round(r.durationUs))),
    query: r.query === null ? null : clean(r.query),
    result_count: r.resultCount,
    billable: r.billable,
  }));
  await sql`
    with ins as (
      insert into request_log (ts, organization_id, user_id, key_id, method, endpoint, status, duration_us, query, result_count, billable)
      select ts, organization_id, user_id, key_id, method, endpoint, status, duration_us, query, result_count, billable
        from json_to_recordset(${JSON.stringify(rows)}::text::json) as r(
          ts timestamptz, organization_id uuid, user_id uuid, key_id uuid, method text, endpoint text,
          status smallint, duration_us integer, query text, result_count integer, billable boolean)
      returning ts, organization_id, user_id, key_id, status, duration_us, query, billable
    )
    insert into usage_daily as u (key_id, day, organization_id, user_id, requests, errors, total_duration_us, searches, billable_searches)
    select key_id, (ts at time zone 'UTC')::date as day, organization_id, user_id, count(*), count(*) filter (where status >= 400),
           sum(duration_us), count(query), count(*) filter (where billable)
      from ins
     group by key_id, day, organization_id, user_id
     order by key_id, day
    on conflict (key_id, day) do update set
      requests = u.requests + excluded.requests,
      errors = u.errors + excluded.errors,
      total_duration_us = u.total_duration_us + excluded.total_duration_us,
      searches = u.searches + excluded.searches,
      billable_searches = u.billable_searches + excluded.billable_searches`;
}

/**
 * In-memory buffer of request records, flushed in batches off the request path: after flushMs,
 * or at once when flushRows are waiting. Flushes run one at a time. A failed flush keeps its
 * rows and retries; close() (graceful shutdown) writes everything that is left.
 */
export class UsageLogWriter {
  private buffer: RequestRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly maxBuffered: number;

  constructor(
    private readonly sql: Sql,
    private readonly logger: Logger,
    private readonly opts: WriterOptions,
  ) {
    this.maxBuffered = opts.maxBuffered ?? 200_000;
  }

  get pending(): number {
    return this.buffer.length;
  }

  push(record: RequestRecord): void {
    this.buffer.push(record);
    if (this.buffer.length > this.maxBuffered) {
      const dropped = this.buffer.splice(0, this.buffer.length - this.maxBuffered);
      this.logger.error({ dropped: dropped.length }, 'request log buffer full (database unreachable?): oldest records dropped');
    }
    if (this.buffer.length >= this.opts.flushRows) void this.flush().catch(() => {});
    else this.schedule(this.opts.flushMs);
  }

  /** Writes every buffered record; rejects if the database refuses (the rows stay buffered). */
  flush(): Promise<void> {
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(() => {});
    return run;
  }

  /** Stops the timer and writes everything, retrying a few times before giving up loudly. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.flush();
        return;
      } catch (err) {
        if (attempt >= 5) {
          this.logger.error({ err, lost: this.buffer.length }, 'request log: could not write the last records at shutdown');
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  }

  private schedule(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(() => {});
    }, ms);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, this.opts.flushRows);
      try {
        await writeRecords(this.sql, batch);
      } catch (err) {
        if (isDataError(err)) {
          await this.writeOneByOne(batch);
          continue;
        }
        this.buffer.unshift(...batch);
        // An outage is logged once by the availability tracker, not at every flush attempt.
        const level = isDatabaseUnavailable(err) ? 'debug' : 'warn';
        this.logger[level]({ err, pending: this.buffer.length }, 'request log flush failed; will retry');
        this.schedule(Math.max(this.opts.flushMs, 1000));
        throw err;
      }
    }
  }

  /** A value PostgreSQL rejects must not block the rest of its batch forever. */
  private async writeOneByOne(batch: RequestRecord[]): Promise<void> {
    for (const [i, r] of batch.entries()) {
      try {
        await writeRecords(this.sql, [r]);
      } catch (err) {
        if (!isDataError(err)) {
          this.buffer.unshift(...batch.slice(i));
          throw err;
        }
        this.logger.error({ err, endpoint: r.endpoint, keyId: r.keyId }, 'request log: record rejected by the database, dropped');
      }
    }
  }
}

function isDataError(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
