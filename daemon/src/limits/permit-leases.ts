import { findKeyByHash, type KeyRow } from '../auth/keys.js';
import type { Sql } from '../db/client.js';
import { leaseForKey, returnPermits, type Lease } from './lease.js';
import { countForKey, type KeyCount } from './limiter.js';
import { TIER_LIMITS, type CounterRow, type TierLimits } from './windows.js';

/** Below this much room left in the user's row, requests are counted one by one (countForKey), exactly as without leases. */
const LEASE_MIN_ROOM = 16;
/** Key hashes remembered with their user (a hint only: every request still looks its key up). */
const MAX_HINTS = 100_000;

/** One reserved request: the user's counts in the minute, day and month once it is admitted. */
interface Permit {
  m: number;
  d: number;
  mo: number;
}

interface UserState {
  /** Requests left in the row after this daemon's latest statement, by that key's limits. */
  room: number;
  /** Permits reserved in one minute (and its day and month), lowest counts first. */
  pool?: { minute: Date; day: Date; month: Date; permits: Permit[] };
  leasing?: Promise<unknown>;
  returning?: Promise<unknown>;
}

/**
 * The guard's counting with permit leases. A daemon that sees a user with plenty of room left
 * reserves a block of permits in the user's counter row with one statement (lease.ts), and hands
 * them out to that user's next requests without any statement but the key lookup the guard needs
 * anyway (as a daemon without rate limits does). Blocks are an eighth of the room left, so they
 * shrink to single permits near the limit; with little room (or an unseen key) requests go through
 * one counting statement each (limiter.ts countForKey), as without leases.
 *
 * Exactness: every permit is counted in the row before it is handed out, so daemons together never
 * admit more than the limit. In one daemon the permits handed out are the lowest counts reserved,
 * and a request counted by a statement while the daemon still holds lower permits takes the lowest
 * and leaves its own count in the pool: the admitted requests see the counts 1, 2, … exactly as if
 * they had been counted one by one (X-RateLimit-Remaining included). Across daemons, permits another
 * daemon holds unused count as used until it hands them out or gives them back: at the first request
 * of the user in a later minute, at the minute sweep, and at shutdown (under-admission, bounded by
 * the block sizes, never over-admission). A key's state (revoked, expired, tier, disabled user) is
 * read by every request: nothing about keys is cached but which user a key hash belongs to.
 */
export class PermitLeases {
  private readonly hints = new Map<string, string>();
  private readonly users = new Map<string, UserState>();
  private readonly sweeper: NodeJS.Timeout;
  /** Requests admitted from a held permit, and statements reserving a block (how much leasing saved). */
  readonly stats = { fromPool: 0, leases: 0, counted: 0 };

  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date,
  ) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), 60_000);
    this.sweeper.unref();
  }

  /** Looks the key up and counts the request, as countForKey does; undefined for an unknown key. */
  async count(keyHash: Buffer, now: Date): Promise<KeyCount | undefined> {
    const id = keyHash.toString('hex');
    const userId = this.hints.get(id);
    const st = userId ? this.users.get(userId) : undefined;
    if (st) await this.expireBefore(userId!, st, now);
    // Held permits of this minute, or a block on its way: only the key lookup is left to do.
    if (st && (st.leasing || (st.pool?.permits.length && st.pool.minute.getTime() === minuteStart(now)))) {
      const key = await findKeyByHash(this.sql, keyHash);
      if (!key) {
        this.hints.delete(id);
        return undefined;
      }
      if (!authenticates(key, now)) return { key };
      if (key.user_id === userId) {
        if (!st.pool?.permits.length && st.leasing) await st.leasing.catch(() => {});
        const counter = take(st, TIER_LIMITS[key.rate_tier]);
        if (counter) {
          this.stats.fromPool++;
          return { key, counter };
        }
      }
    }
    return this.viaStatement(keyHash, id, now);
  }

  /** Gives every held permit back (graceful shutdown), so other daemons can admit them. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.users.entries()].map(([userId, st]) => this.giveBack(userId, st)));
  }

  /** Gives back the permits of minutes that have ended; forgets users with nothing held. */
  async sweep(): Promise<void> {
    const now = this.now();
    await Promise.all([...this.users.entries()].map(([userId, st]) => this.expireBefore(userId, st, now)));
    for (const [userId, st] of this.users) if (!st.pool && !st.leasing && !st.returning) this.users.delete(userId);
  }

  private async viaStatement(keyHash: Buffer, id: string, now: Date): Promise<KeyCount | undefined> {
    const userId = this.hints.get(id);
    const st = userId ? this.users.get(userId) : undefined;
    let r: Lease | undefined;
    if (st && !st.leasing && st.room >= LEASE_MIN_ROOM) {
      const leasing = leaseForKey(this.sql, keyHash, now);
      st.leasing = leasing;
      this.stats.leases++;
      try {
        r = await leasing;
      } finally {
        st.leasing = undefined;
      }
    } else {
      this.stats.counted++;
      const c = await countForKey(this.sql, keyHash, now);
      r = c && { key: c.key, counter: c.counter, block: c.counter?.admitted ? 1 : 0 };
    }
    if (!r) {
      this.hints.delete(id);
      return undefined;
    }
    if (!r.counter) return { key: r.key };
    return { key: r.key, counter: this.merge(id, r.key, r.counter, r.block) };
  }

  /** Adds a statement's reserved permits to the user's pool and gives this request the lowest one. */
  private merge(id: string, key: KeyRow, c: CounterRow, block: number): CounterRow {
    if (this.hints.size >= MAX_HINTS) this.hints.clear();
    this.hints.set(id, key.user_id);
    let st = this.users.get(key.user_id);
    if (!st) this.users.set(key.user_id, (st = { room: 0 }));
    const limits = TIER_LIMITS[key.rate_tier];
    st.room = Math.min(limits.minute - c.minute_count, limits.day - c.day_count, limits.month - c.month_count);
    if (st.pool && st.pool.minute.getTime() !== c.minute_start.getTime()) {
      // Reserved in an earlier minute and not yet given back (a request of the new minute raced the sweep).
      void this.giveBack(key.user_id, st).catch(() => {});
    }
    if (!st.pool) st.pool = { minute: c.minute_start, day: c.day_start, month: c.month_start, permits: [] };
    const permits = st.pool.permits;
    const last = permits.length ? permits[permits.length - 1]!.m : 0;
    for (let j = block - 1; j >= 0; j--) permits.push({ m: c.minute_count - j, d: c.day_count - j, mo: c.month_count - j });
    // Blocks usually come in rising order; another daemon's give-back can lower later counts.
    if (block && c.minute_count - block + 1 < last) permits.sort((a, b) => a.m - b.m);
    return take(st, limits) ?? { ...c, admitted: false };
  }

  /** Before counting in a later minute, gives back what the earlier one left unused (awaited, so one daemon's counts stay exact). */
  private async expireBefore(userId: string, st: UserState, now: Date): Promise<void> {
    if (st.returning) await st.returning.catch(() => {});
    if (st.pool && st.pool.minute.getTime() < minuteStart(now)) await this.giveBack(userId, st);
  }

  private async giveBack(userId: string, st: UserState): Promise<void> {
    const pool = st.pool;
    st.pool = undefined;
    if (!pool?.permits.length) return;
    const returning = returnPermits(this.sql, userId, pool.permits.length, pool);
    st.returning = returning;
    try {
      await returning;
    } finally {
      if (st.returning === returning) st.returning = undefined;
    }
  }
}

/** The lowest held permit when this key's limits admit it (a lower tier's may not: then none). */
function take(st: UserState, limits: TierLimits): CounterRow | undefined {
  const pool = st.pool;
  const p = pool?.permits[0];
  if (!pool || !p) return undefined;
  if (p.m > limits.minute || p.d > limits.day || p.mo > limits.month) return undefined;
  pool.permits.shift();
  return {
    minute_start: pool.minute,
    minute_count: p.m,
    day_start: pool.day,
    day_count: p.d,
    month_start: pool.month,
    month_count: p.mo,
    admitted: true,
  };
}

/** The test the counting statements apply before counting anything for a key. */
function authenticates(key: KeyRow, now: Date): boolean {
  return key.key_active && key.user_active && (!key.expires_at || key.expires_at.getTime() > now.getTime());
}

const minuteStart = (d: Date) => d.getTime() - (d.getTime() % 60_000);
