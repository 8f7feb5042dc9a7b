import type { KeyRow } from '../auth/keys.js';
import type { Sql } from '../db/client.js';
import { runCountingStatement, splitKeyCount, type Held, type KeyCountRow } from './limiter.js';
import type { CounterRow } from './windows.js';

/** A looked-up key and, when it authenticates and there was room, a block of permits reserved for its user. */
export interface Lease {
  key: KeyRow;
  /** The user's counts after the block was added (admitted false: no room, nothing reserved). */
  counter?: CounterRow;
  /** Permits reserved: the counts counter - block + 1 … counter in every window. */
  block: number;
  held?: Held;
}

type Row = KeyCountRow & { block: number | null };

/**
 * countForKey (limiter.ts) reserving a block of permits instead of one: looks the key up by its
 * hash and adds the block to the user's counts in one statement (limiter.ts LEASE_FOR_KEY). The
 * caller (permit-leases.ts) hands the permits out to this and later requests of the user without a
 * statement.
 */
export async function leaseForKey(sql: Sql, keyHash: Buffer, now: Date): Promise<Lease | undefined> {
  const rows = await runCountingStatement<Row>(sql, 'lease', keyHash, now);
  if (!rows[0]) return undefined;
  const { block, ...row } = rows[0];
  const { key, counter, held } = splitKeyCount(row);
  return counter ? { key, counter, block: block ?? 0, ...(held ? { held } : {}) } : { key, block: 0 };
}

/**
 * Gives back permits a daemon reserved and never handed out, `counts` their minute counts, and
 * settles the blocks it leased in that minute (`leased` permits in all, used or not). While their
 * minute goes on they become the row's spare permits, which the next requests of any daemon take
 * with their own counts; once it has `ended`, they are subtracted from each window that is still
 * the one they were reserved in (a window that rolled on already forgot them).
 */
export async function returnPermits(
  sql: Sql,
  userId: string,
  given: { counts: number[]; leased: number; ended: boolean },
  windows: { minute: Date; day: Date; month: Date },
): Promise<void> {
  const n = given.ended ? given.counts.length : 0;
  const spare = given.ended ? [] : given.counts;
  await sql`
    update rate_limit_counters set
      spare = case when minute_start = ${windows.minute} then spare || ${spare}::int[] else spare end,
      leased = case when minute_start = ${windows.minute} then greatest(0, leased - ${given.leased}::int) else leased end,
      minute_count = case when minute_start = ${windows.minute} then greatest(0, minute_count - ${n}::int) else minute_count end,
      day_count = case when day_start = ${windows.day} then greatest(0, day_count - ${n}::int) else day_count end,
      month_count = case when month_start = ${windows.month} then greatest(0, month_count - ${n}::int) else month_count end
     where user_id = ${userId}`;
}

/** Whether the user's row, in the minute `minute`, has no leased permits left unsettled or has spare ones. */
export async function leasesSettled(sql: Sql, userId: string, minute: Date): Promise<boolean> {
  const [r] = await sql<{ settled: boolean }[]>`
    select leased = 0 or cardinality(spare) > 0 as settled from rate_limit_counters where user_id = ${userId} and minute_start = ${minute}`;
  return r?.settled ?? true;
}
