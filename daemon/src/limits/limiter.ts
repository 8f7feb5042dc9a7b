import type { KeyRow } from '../auth/keys.js';
import type { Sql } from '../db/client.js';
import { TIER_LIMITS, windowStarts, type CounterRow, type TierLimits } from './windows.js';

// The counting rule, shared by every statement that counts for a key (countForKey here, leaseForKey
// in lease.ts):
//
// - The upsert takes the row lock, so concurrent requests (from any number of daemon processes)
//   are serialised on the user's row and each sees the previous one's count: exactly `limit`
//   requests pass per window.
// - A window whose start moved on counts from zero (`greatest` keeps windows monotonic, so a
//   process whose clock lags a little counts into the newer window instead of resetting it).
// - The request passes only if every window has room; a denied request consumes nothing.
// - The first request of a user inserts the row with its first counts (every limit is at least 1).
//
// Each statement's text is built once, here at load, from the parts below, and run with the same
// three parameters ($1 the key hash, $2 the request time, $3 LIMITS_ARRAY): postgres.js prepares it
// once per connection and reuses it, as it does a flat tagged template (composed fragments would be
// rebuilt on every request: about twice the client CPU, measured).

/**
 * What a user's row holds besides what the statement admitted: its counts, the permits daemons
 * leased in blocks this minute and have not settled, and the spare permits given back.
 */
export interface Held {
  row: Pick<CounterRow, 'minute_count' | 'day_count' | 'month_count'>;
  leased: number;
  spare: number;
}

/** A looked-up key, and its request's count unless the key does not authenticate. */
export type KeyCount = { key: KeyRow; counter?: CounterRow; held?: Held };

type HeldRow = { issued: number | null; leased: number | null; spare: number | null };
export type KeyCountRow = KeyRow & { [K in keyof CounterRow]: CounterRow[K] | null } & HeldRow;

const TIER_ORDER = ['free', 'basic', 'pro'] as const;
/**
 * Every tier's minute, day and month limits in TIER_ORDER, as one int[] literal built once: each
 * parameter costs the client several microseconds per request (measured), nine of them more than
 * the rest of the statement's client work. The key lookup indexes it from 1, 4 and 7 by tier.
 */
export const LIMITS_ARRAY = `{${TIER_ORDER.map((t) => [TIER_LIMITS[t].minute, TIER_LIMITS[t].day, TIER_LIMITS[t].month].join(',')).join(',')}}`;

/**
 * `k`: the key by its SHA-256 hash (the columns of auth/keys.ts `findKeyByHash`), its user, its
 * tier's limits (lm, ld, lmo) and the request's window starts (wm, wd, wmo). No row for an unknown key.
 */
const KEY_LOOKUP = `
      select k.id as key_id, k.prefix, k.is_active as key_active, k.is_full_access, k.rate_tier,
             k.expires_at, k.last_used_at, u.id as user_id, u.is_active as user_active, u.is_admin,
             u.organization_id, t.l[o.i] as lm, t.l[o.i + 1] as ld, t.l[o.i + 2] as lmo,
             t.now, date_trunc('minute', t.now, 'UTC') as wm, date_trunc('day', t.now, 'UTC') as wd,
             date_trunc('month', t.now, 'UTC') as wmo
        from api_keys k
        join users u on u.id = k.user_id
        cross join (select $2::timestamptz as now, $3::int[] as l) t
        cross join lateral (select case k.rate_tier when 'free' then 1 when 'basic' then 4 when 'pro' then 7 end as i) o
       where k.key_hash = $1`;

/** Only a key that authenticates counts anything. */
const AUTHENTICATES = 'k.key_active and k.user_active and (k.expires_at is null or k.expires_at > k.now)';

/**
 * `n`: the row's counts in the request's windows (a window whose start moved on counts from zero),
 * its spare permits and leased blocks (both of the minute only). Spare permits a minute left
 * unused are given back to the day and month when the minute moves on.
 */
const ROW_COUNTS = `(select case when c.minute_start >= excluded.minute_start then c.minute_count else 0 end as m,
                             case when c.day_start >= excluded.day_start then c.day_count - g.gone else 0 end as d,
                             case when c.month_start >= excluded.month_start then c.month_count - g.gone else 0 end as mo,
                             case when c.minute_start >= excluded.minute_start then c.spare else '{}' end as spare,
                             case when c.minute_start >= excluded.minute_start then c.leased else 0 end as leased
                        from (select case when c.minute_start >= excluded.minute_start then 0 else cardinality(c.spare) end as gone) g) n`;

/**
 * `t`: one request under the limits `lm`, `ld`, `lmo`. The lowest spare permit that fits them is
 * taken first (its counts are the minute count and the minute's day and month offsets, which
 * every statement of the minute moves together); else the next count when every window has room;
 * else nothing (`issued` 0): a denied request consumes nothing.
 */
const takeOne = (lm: string, ld: string, lmo: string) => `
      lateral (select case when s.x is not null then 0 when f.room then 1 else 0 end as inc,
                      case when s.x is not null then s.x when f.room then n.m + 1 else 0 end as issued,
                      case when s.x is not null then array_remove(n.spare, s.x) else n.spare end as spare
                 from (select min(x) as x from unnest(n.spare) x
                        where x <= ${lm} and x + n.d - n.m <= ${ld} and x + n.mo - n.m <= ${lmo}) s,
                      lateral (select n.m < ${lm} and n.d < ${ld} and n.mo < ${lmo} as room) f) t`;

/** The updated windows: each at its newer start, `cur.<added>` requests more. */
const windowsPlus = (added: string) => `greatest(c.minute_start, excluded.minute_start), cur.m + cur.${added},
                 greatest(c.day_start, excluded.day_start), cur.d + cur.${added},
                 greatest(c.month_start, excluded.month_start), cur.mo + cur.${added}`;

const COUNTER_COLUMNS = 'minute_start, minute_count, day_start, day_count, month_start, month_count, admitted';
/** What every counting statement returns besides the counts: the minute count it admitted, the leased blocks and spare permits left. */
const HELD_COLUMNS = 'issued, leased, cardinality(spare) as spare';

/** The key's columns and the counter's (null when nothing was counted); `extra` are more of `counted`'s. */
const keyAndCounter = (extra = '') => `
    select k.key_id, k.prefix, k.key_active, k.is_full_access, k.rate_tier, k.expires_at, k.last_used_at,
           k.user_id, k.user_active, k.is_admin, k.organization_id,
           c.minute_start, c.minute_count, c.day_start, c.day_count, c.month_start, c.month_count, c.admitted,
           c.issued, c.leased, c.spare${extra}
      from k left join counted c on true`;

/** One request: a spare permit, else the next count when every window has room. */
const COUNT_FOR_KEY = `
    with k as (${KEY_LOOKUP}
    ), counted as (
      insert into rate_limit_counters as c (user_id, ${COUNTER_COLUMNS}, issued)
      select k.user_id, k.wm, 1, k.wd, 1, k.wmo, 1, true, 1 from k where ${AUTHENTICATES}
      on conflict (user_id) do update set (${COUNTER_COLUMNS}, spare, leased, issued) = (
          select ${windowsPlus('inc')}, cur.issued > 0, cur.spare, cur.leased, cur.issued
            from (select n.m, n.d, n.mo, n.leased, t.inc, t.issued, t.spare
                    from k, ${ROW_COUNTS}, ${takeOne('k.lm', 'k.ld', 'k.lmo')}) cur)
      returning ${COUNTER_COLUMNS}, ${HELD_COLUMNS}
    )${keyAndCounter()}`;

// A block is an eighth of the room left (the fewest requests left over the minute, day and month by
// the calling key's limits), at most 64 and at least 1: near the limit it shrinks to single permits,
// so what other daemons hold unused stays small when the row fills. `last_admitted` carries the
// block's size back (RETURNING sees only the new row).
/** A block of requests reserved at once (lease.ts), as many as the room allows. */
const LEASE_FOR_KEY = `
    with k as (${KEY_LOOKUP}
    ), counted as (
      insert into rate_limit_counters as c (user_id, ${COUNTER_COLUMNS}, last_admitted, leased, issued)
      select k.user_id, k.wm, b.n, k.wd, b.n, k.wmo, b.n, true, b.n, b.n, b.n
        from k cross join lateral (select greatest(1, least(64, least(k.lm, k.ld, k.lmo) / 8)) as n) b
       where ${AUTHENTICATES}
      on conflict (user_id) do update set (${COUNTER_COLUMNS}, last_admitted, spare, leased, issued) = (
          select ${windowsPlus('n')}, cur.n > 0, cur.n, cur.spare, cur.leased + cur.n, cur.m + cur.n
            from (select n.m, n.d, n.mo, n.spare, n.leased, case when r.room >= 1 then greatest(1, least(64, r.room / 8)) else 0 end as n
                    from k, ${ROW_COUNTS},
                         lateral (select least(k.lm - n.m, k.ld - n.d, k.lmo - n.mo) as room) r) cur)
      returning ${COUNTER_COLUMNS}, ${HELD_COLUMNS}, last_admitted as block
    )${keyAndCounter(', c.block')}`;

/** Runs one of the counting statements above for a key hash at a time (prepared once per connection). */
export function runCountingStatement<T extends KeyCountRow>(sql: Sql, statement: 'count' | 'lease', keyHash: Buffer, now: Date) {
  return sql.unsafe<T[]>(statement === 'count' ? COUNT_FOR_KEY : LEASE_FOR_KEY, [keyHash, now, LIMITS_ARRAY], { prepare: true });
}

/**
 * The guard's one statement when rate limits are on: looks the API key up by its hash and counts
 * the request against the limits of the key's tier for the key's user. One statement instead of a
 * lookup plus an upsert halves the queries per request. Keys that do not authenticate (revoked,
 * expired, disabled user) count nothing and come back without a counter; an unknown key returns
 * nothing.
 */
export async function countForKey(sql: Sql, keyHash: Buffer, now: Date): Promise<KeyCount | undefined> {
  const rows = await runCountingStatement(sql, 'count', keyHash, now);
  return rows[0] && splitKeyCount(rows[0]);
}

/**
 * A row of countForKey's or leaseForKey's statement: the key's columns, and the counter's (all
 * null when the key does not authenticate, so nothing was counted).
 */
export function splitKeyCount(row: KeyCountRow): KeyCount {
  const { minute_start, minute_count, day_start, day_count, month_start, month_count, admitted, issued, leased, spare, ...key } = row;
  if (admitted === null) return { key };
  const counts = { minute_count: minute_count!, day_count: day_count!, month_count: month_count! };
  return {
    key,
    counter: {
      minute_start: minute_start!,
      day_start: day_start!,
      month_start: month_start!,
      admitted,
      ...issuedCounts(counts, admitted, issued),
    },
    held: { row: counts, leased: leased ?? 0, spare: spare ?? 0 },
  };
}

/**
 * The counts of the request a statement admitted: `issued` in the minute, and the day and month
 * counts the minute's offsets give it (a spare permit is below the row's counts); the row's counts
 * when nothing was admitted.
 */
function issuedCounts(
  c: { minute_count: number; day_count: number; month_count: number },
  admitted: boolean,
  issued: number | null,
): { minute_count: number; day_count: number; month_count: number } {
  if (!admitted || !issued || issued === c.minute_count) return c;
  return { minute_count: issued, day_count: issued + c.day_count - c.minute_count, month_count: issued + c.month_count - c.minute_count };
}

/** One request of a user already identified ($1), in the windows $2..$4, under the limits $5..$7. */
const COUNT_FOR_USER = `
    insert into rate_limit_counters as c (user_id, ${COUNTER_COLUMNS}, issued)
    values ($1, $2, 1, $3, 1, $4, 1, true, 1)
    on conflict (user_id) do update set (${COUNTER_COLUMNS}, spare, leased, issued) = (
        select ${windowsPlus('inc')}, cur.issued > 0, cur.spare, cur.leased, cur.issued
          from (select n.m, n.d, n.mo, n.leased, t.inc, t.issued, t.spare
                  from ${ROW_COUNTS}, ${takeOne('$5::int', '$6::int', '$7::int')}) cur)
    returning ${COUNTER_COLUMNS}, issued`;

/**
 * The same counting rule for a caller already identified without a key (a web UI session): one
 * upsert on the user's row.
 */
export async function countForUser(sql: Sql, userId: string, limits: TierLimits, now: Date): Promise<CounterRow> {
  const w = windowStarts(now);
  const rows = await sql.unsafe<(CounterRow & { issued: number })[]>(
    COUNT_FOR_USER,
    [userId, w.minute, w.day, w.month, limits.minute, limits.day, limits.month],
    { prepare: true },
  );
  const { issued, ...row } = rows[0]!;
  return { ...row, ...issuedCounts(row, row.admitted, issued) };
}

/**
 * Drops counters whose month has ended: their user has been idle for a whole month. Rows a counting
 * statement holds are skipped (their user is active again): the guard's statements lock several
 * rows in user order, and a delete taking its locks in another order could deadlock with them.
 */
export async function pruneCounters(sql: Sql, now: Date): Promise<number> {
  const r = await sql`
    delete from rate_limit_counters
     where user_id in (select user_id from rate_limit_counters where month_start < ${windowStarts(now).month} for update skip locked)`;
  return r.count;
}
