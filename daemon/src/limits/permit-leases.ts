import { findKeyByHash, type KeyRow } from '../auth/keys.js';
import type { Sql } from '../db/client.js';
import { leaseForKey, returnPermits, type Lease } from './lease.js';
import { countForKey, type KeyCount } from './limiter.js';
import { PermitReclaim, type Listener } from './reclaim.js';
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
  /** Permits reserved in one minute (and its day and month), lowest counts first; `leased`: the blocks leased into it. */
  pool?: { minute: Date; day: Date; month: Date; permits: Permit[]; leased: number };
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
 * daemon holds unused count as used until it hands them out or gives them back; a daemon that finds
 * no room while some are held asks for them first (reclaim.ts), and given back in their minute they
 * are the row's spare permits, taken with their own counts: two daemons admit exactly the limit, each
 * count once. They also go back at the first request of the user in a later minute, at the minute
 * sweep, and at shutdown. A key's state (revoked, expired, tier, disabled user) is read by every
 * request: nothing about keys is cached but which user a key hash belongs to.
 */
export class PermitLeases {
  private readonly hints = new Map<string, string>();
  private readonly users = new Map<string, UserState>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly reclaim: PermitReclaim;
  /** Requests admitted from a held permit, statements reserving a block, and refusals that asked for held permits back. */
  readonly stats = { fromPool: 0, leases: 0, counted: 0, reclaims: 0 };

  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date,
    opts: { listener?: Listener } = {},
  ) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), 60_000);
    this.sweeper.unref();
    this.reclaim = new PermitReclaim(sql, opts.listener, (userId) => {
      const st = this.users.get(userId);
      if (st?.pool) void this.giveBack(userId, st, false).catch(() => {});
    });
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
    const now = this.now();
    await Promise.all(
      [...this.users.entries()].map(([userId, st]) => this.giveBack(userId, st, (st.pool?.minute.getTime() ?? 0) < minuteStart(now))),
    );
    await this.reclaim.close();
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
    let leased = false;
    if (st && !st.leasing && st.room >= LEASE_MIN_ROOM) {
      const leasing = leaseForKey(this.sql, keyHash, now);
      st.leasing = leasing;
      this.stats.leases++;
      leased = true;
      this.reclaim.answer();
      try {
        r = await leasing;
      } finally {
        st.leasing = undefined;
      }
    } else r = await this.countOne(keyHash, now);
    if (!r) {
      this.hints.delete(id);
      return undefined;
    }
    if (!r.counter) return { key: r.key };
    let counter = this.merge(id, { ...r, counter: r.counter }, leased);
    if (!counter.admitted && r.held && (r.held.leased || (leased && r.held.spare))) {
      // No room, but daemons hold permits leased this minute: they are asked for them back first.
      // (A block finds no room while spare permits wait: one request takes one.)
      const retried = r.held.leased
        ? await this.afterReclaim(r.key.user_id, r.counter.minute_start, r.held.leased, keyHash, now)
        : await this.countOne(keyHash, now);
      if (retried?.counter) counter = this.merge(id, { ...retried, counter: retried.counter }, false);
    }
    return { key: r.key, counter };
  }

  private async countOne(keyHash: Buffer, now: Date): Promise<Lease | undefined> {
    this.stats.counted++;
    const c = await countForKey(this.sql, keyHash, now);
    return c && { key: c.key, counter: c.counter, block: c.counter?.admitted ? 1 : 0, ...(c.held ? { held: c.held } : {}) };
  }

  /** Settles this daemon's own leases of the user, asks the other holders, and counts the request again once they have answered. */
  private async afterReclaim(userId: string, minute: Date, leased: number, keyHash: Buffer, now: Date): Promise<Lease | undefined> {
    this.stats.reclaims++;
    const st = this.users.get(userId);
    if (st?.pool) await this.giveBack(userId, st, false);
    if (!(await this.reclaim.ask(userId, minute, leased))) return undefined;
    return this.countOne(keyHash, now);
  }

  /** Adds a statement's reserved permits to the user's pool and gives this request the lowest one. */
  private merge(id: string, r: Lease & { counter: CounterRow }, leased: boolean): CounterRow {
    const { key, counter: c, block } = r;
    if (this.hints.size >= MAX_HINTS) this.hints.clear();
    this.hints.set(id, key.user_id);
    let st = this.users.get(key.user_id);
    if (!st) this.users.set(key.user_id, (st = { room: 0 }));
    const limits = TIER_LIMITS[key.rate_tier];
    // The row's own counts (a spare permit's are below them).
    const row = r.held?.row ?? c;
    st.room = Math.min(limits.minute - row.minute_count, limits.day - row.day_count, limits.month - row.month_count);
    if (st.pool && st.pool.minute.getTime() !== c.minute_start.getTime()) {
      // Reserved in an earlier minute and not yet given back (a request of the new minute raced the sweep).
      void this.giveBack(key.user_id, st, true).catch(() => {});
    }
    if (!st.pool) st.pool = { minute: c.minute_start, day: c.day_start, month: c.month_start, permits: [], leased: 0 };
    if (leased) st.pool.leased += block;
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
    if (st.pool && st.pool.minute.getTime() < minuteStart(now)) await this.giveBack(userId, st, true);
  }

  /** Gives the pool's unused permits back and settles its leased blocks; `ended`: its minute is over. */
  private async giveBack(userId: string, st: UserState, ended: boolean): Promise<void> {
    const pool = st.pool;
    st.pool = undefined;
    if (!pool || (!pool.permits.length && !pool.leased)) return;
    const returning = returnPermits(this.sql, userId, { counts: pool.permits.map((p) => p.m), leased: pool.leased, ended }, pool);
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
