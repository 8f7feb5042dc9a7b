import { createSql, type Sql } from './client.js';
import type { Logger } from '../logger.js';

// SQLSTATEs that mean "the server cannot serve you right now", not "your query is wrong": class 08
// (connection exception), the server shutting down, crashing or starting up, or out of connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
// postgres.js' own connection errors, socket errors, and node-postgres' (graphile-worker's) messages.
const UNAVAILABLE_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const PG_CLIENT_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;
// The subset that can only happen before anything was sent: the request certainly did nothing.
const NOT_CONNECTED_CODES = new Set([
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P03',
  '53300',
]);

/** Whether `err` (or its cause) says the database is unreachable, as opposed to a failed query. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code)))
    return true;
  if (typeof e.message === 'string' && PG_CLIENT_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/** Whether `err` says no connection could be made at all, so the failed call had no effect. */
export function isConnectFailure(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && NOT_CONNECTED_CODES.has(e.code)) return true;
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => isConnectFailure(x, depth + 1))) return true;
  return isConnectFailure(e.cause, depth + 1);
}

export interface AvailabilityOptions {
  /** How often a down database is probed. */
  probeIntervalMs?: number;
  /** Longest a probe may take before it counts as a failure. */
  probeTimeoutMs?: number;
  /** The URL is a transaction pooler (see createSql). */
  pooled?: boolean;
  /** What is logged when it goes down (once) and comes back; default: the primary's messages. */
  messages?: { down: string; up: string; level: 'error' | 'warn' };
}

const PRIMARY_MESSAGES = {
  down: 'database unreachable: requests answer 503 until it is back',
  up: 'database reachable again',
  level: 'error',
} as const;

/**
 * The process's view of whether PostgreSQL is reachable. Requests that fail because it is not
 * switch it to "down" (logged once); from then on the API answers 503 at once instead of queueing
 * on a dead pool, while a probe on its own connection checks every second and switches it back
 * (logged once). While the database is up it is only probed to judge a request that failed.
 */
export class DatabaseAvailability {
  private downSince: number | undefined;
  /** Last moment the database was seen down, and when it came back: to judge requests that spanned an outage. */
  private lastDownAt = 0;
  private lastUpAt = 0;
  private probing: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probeSql: Sql | undefined;
  private closed = false;
  private readonly probeIntervalMs: number;
  private readonly probeTimeoutMs: number;
  private readonly pooled: boolean;
  private readonly messages: NonNullable<AvailabilityOptions['messages']>;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    opts: AvailabilityOptions = {},
  ) {
    this.probeIntervalMs = opts.probeIntervalMs ?? 1000;
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 2500;
    this.pooled = opts.pooled ?? false;
    this.messages = opts.messages ?? PRIMARY_MESSAGES;
  }

  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  /** Seconds a client should wait before retrying (the Retry-After of a 503). */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.probeIntervalMs * 2) / 1000));
  }

  /**
   * Whether a failed call is explained by the database being unreachable (then the client gets a
   * 503, not a 500). A refused connection says so by itself; a lost one, or an error a handler
   * wrapped in its own, is checked with a probe, so one dropped connection does not switch the
   * whole process to "down". A call that started at `since` and overlapped an outage seen by this
   * process (a restart that is already over) is explained by it too.
   */
  async explains(err: unknown, since?: number): Promise<boolean> {
    if (isConnectFailure(err)) {
      this.markDown(err);
      return true;
    }
    if (this.isDown) return true;
    if (!(await this.check()) || isDatabaseUnavailable(err)) return true;
    return since !== undefined && (this.lastDownAt >= since || this.lastUpAt >= since);
  }

  /** Probes now (one probe at a time, shared by concurrent callers); true when the database answered. */
  check(): Promise<boolean> {
    this.probing ??= this.probe().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.probeSql?.end({ timeout: 1 }).catch(() => {});
  }

  private async probe(): Promise<boolean> {
    // Its own single connection: the probe must not wait behind requests queued on the main pool.
    this.probeSql ??= createSql(this.url, {
      max: 1,
      applicationName: 'docsift-probe',
      connectTimeoutMs: this.probeTimeoutMs,
      pooled: this.pooled,
    });
    let timeout: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.probeSql`select 1`,
        new Promise((_, reject) => {
          timeout = setTimeout(
            () => reject(Object.assign(new Error('database probe timed out'), { code: 'ETIMEDOUT' })),
            this.probeTimeoutMs,
          );
        }),
      ]);
      this.markUp();
      return true;
    } catch (err) {
      this.markDown(err);
      return false;
    } finally {
      clearTimeout(timeout);
    }
  }

  private markDown(err: unknown): void {
    if (this.closed) return;
    this.lastDownAt = Date.now();
    if (this.downSince === undefined) {
      this.downSince = Date.now();
      this.logger[this.messages.level]({ err }, this.messages.down);
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.isDown) void this.check();
      }, this.probeIntervalMs);
      this.timer.unref();
    }
  }

  private markUp(): void {
    if (this.downSince === undefined) return;
    this.logger.info({ downMs: Date.now() - this.downSince }, this.messages.up);
    this.downSince = undefined;
    this.lastUpAt = Date.now();
  }
}
