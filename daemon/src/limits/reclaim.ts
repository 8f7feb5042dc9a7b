import type { Sql } from '../db/client.js';
import { createSql } from '../db/client.js';
import { leasesSettled } from './lease.js';

/** The channel on which a daemon that found no room asks the others for the user's permits they hold unused. */
const CHANNEL = 'docsift_permit_reclaim';
/** How long a refusal waits for the holders (they answer in milliseconds; a holder that died never does). */
const WAIT_MS = 1000;
const POLL_MS = 20;
/** Users whose holders did not answer, remembered so later refusals in that state do not wait again. */
const MAX_GAVE_UP = 10_000;

/** LISTEN on a connection of its own, opened on first use (never through a transaction pooler). */
export interface Listener {
  listen(channel: string, onPayload: (payload: string) => void): Promise<unknown>;
  close(): Promise<void>;
}

/** A Listener on the direct database URL: one connection, opened by the first listen(). */
export function directListener(url: string): Listener {
  let sql: Sql | undefined;
  return {
    listen: (channel, onPayload) => (sql ??= createSql(url, { max: 1 })).listen(channel, onPayload),
    close: async () => {
      await sql?.end({ timeout: 1 });
    },
  };
}

/**
 * Permits a daemon leased and did not use count as used in the user's row until it gives them
 * back. A daemon that finds no room while the row shows leased permits unsettled asks every daemon
 * (NOTIFY) to give the user's back, waits until the row shows them settled (or spare permits to
 * take), and counts the request again: two daemons admit exactly the limit, not the limit less
 * what the other holds. A holder that died leaves its permits counted until the minute ends; the
 * refusal then waits WAIT_MS once, not again while nothing changed.
 */
export class PermitReclaim {
  private listening?: Promise<unknown>;
  private readonly waits = new Map<string, Promise<boolean>>();
  private readonly gaveUp = new Map<string, string>();

  constructor(
    private readonly sql: Sql,
    private readonly listener: Listener | undefined,
    private readonly onAsked: (userId: string) => void,
  ) {}

  /** Starts answering other daemons' asks: at this daemon's first lease. */
  answer(): void {
    this.listening ??= this.listener
      ?.listen(CHANNEL, (userId) => this.onAsked(userId))
      .catch(() => {
        this.listening = undefined;
      });
  }

  /**
   * Resolves true once the user's leased permits of `minute` are settled (or some are spare),
   * false when the holders did not answer within WAIT_MS. The refusals of one user share one wait.
   */
  async ask(userId: string, minute: Date, leased: number): Promise<boolean> {
    const state = `${minute.getTime()}:${leased}`;
    if (this.gaveUp.get(userId) === state) return false;
    let wait = this.waits.get(userId);
    if (!wait) {
      wait = this.wait(userId, minute).finally(() => this.waits.delete(userId));
      this.waits.set(userId, wait);
    }
    const settled = await wait;
    if (!settled) {
      if (this.gaveUp.size >= MAX_GAVE_UP) this.gaveUp.clear();
      this.gaveUp.set(userId, state);
    }
    return settled;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  private async wait(userId: string, minute: Date): Promise<boolean> {
    if (await leasesSettled(this.sql, userId, minute)) return true;
    await this.sql`select pg_notify(${CHANNEL}, ${userId})`;
    for (const end = Date.now() + WAIT_MS; Date.now() < end; ) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (await leasesSettled(this.sql, userId, minute)) return true;
    }
    return false;
  }
}
