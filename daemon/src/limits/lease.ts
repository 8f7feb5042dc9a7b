import type { KeyRow } from '../auth/keys.js';
import type { Sql } from '../db/client.js';
import { LIMITS_ARRAY, splitKeyCount, type KeyCountRow } from './limiter.js';
import type { CounterRow } from './windows.js';

/** A looked-up key and, when it authenticates and there was room, a block of permits reserved for its user. */
export interface Lease {
  key: KeyRow;
  /** The user's counts after the block was added (admitted false: no room, nothing reserved). */
  counter?: CounterRow;
  /** Permits reserved: the counts counter - block + 1 … counter in every window. */
  block: number;
}

type Row = KeyCountRow & { block: number | null };

// A block is an eighth of the room left (the fewest requests left over the minute, day and month by
// the calling key's limits), at most 64 and at least 1: near the limit it shrinks to single permits,
// so what other daemons hold unused stays small when the row fills. Every permit is counted in the
// row before it is handed out, so no number of daemons ever admits more than the limit.

/**
 * countForKey (limiter.ts) reserving a block of permits instead of one: looks the key up by its
 * hash and adds the block to the user's counts in one statement. The caller (permit-leases.ts)
 * hands the permits out to this and later requests of the user without a statement.
 */
export async function leaseForKey(sql: Sql, keyHash: Buffer, now: Date): Promise<Lease | undefined> {
  const rows = await sql<Row[]>`
    with k as (
      select k.id as key_id, k.prefix, k.is_active as key_active, k.is_full_access, k.rate_tier,
             k.expires_at, k.last_used_at, u.id as user_id, u.is_active as user_active, u.is_admin,
             u.organization_id, t.l[o.i] as lm, t.l[o.i + 1] as ld, t.l[o.i + 2] as lmo,
             t.now, date_trunc('minute', t.now, 'UTC') as wm, date_trunc('day', t.now, 'UTC') as wd,
             date_trunc('month', t.now, 'UTC') as wmo
        from api_keys k
        join users u on u.id = k.user_id
        cross join (select ${now}::timestamptz as now, ${LIMITS_ARRAY}::int[] as l) t
        cross join lateral (select case k.rate_tier when 'free' then 1 when 'basic' then 4 when 'pro' then 7 end as i) o
       where k.key_hash = ${keyHash}
    ), counted as (
      insert into rate_limit_counters as c
        (user_id, minute_start, minute_count, day_start, day_count, month_start, month_count, admitted, last_admitted)
      select k.user_id, k.wm, b.n, k.wd, b.n, k.wmo, b.n, true, b.n
        from k cross join lateral (select greatest(1, least(64, least(k.lm, k.ld, k.lmo) / 8)) as n) b
       where k.key_active and k.user_active and (k.expires_at is null or k.expires_at > k.now)
      on conflict (user_id) do update set
        (minute_start, minute_count, day_start, day_count, month_start, month_count, admitted, last_admitted) = (
          select greatest(c.minute_start, excluded.minute_start), cur.m + cur.n,
                 greatest(c.day_start, excluded.day_start), cur.d + cur.n,
                 greatest(c.month_start, excluded.month_start), cur.mo + cur.n,
                 cur.n > 0, cur.n
            from (select n.m, n.d, n.mo,
                         case when r.room >= 1 then greatest(1, least(64, r.room / 8)) else 0 end as n
                    from k,
                         (select case when c.minute_start >= excluded.minute_start then c.minute_count else 0 end as m,
                                 case when c.day_start >= excluded.day_start then c.day_count else 0 end as d,
                                 case when c.month_start >= excluded.month_start then c.month_count else 0 end as mo) n,
                         lateral (select least(k.lm - n.m, k.ld - n.d, k.lmo - n.mo) as room) r) cur)
      returning minute_start, minute_count, day_start, day_count, month_start, month_count, admitted, last_admitted as block
    )
    select k.key_id, k.prefix, k.key_active, k.is_full_access, k.rate_tier, k.expires_at, k.last_used_at,
           k.user_id, k.user_active, k.is_admin, k.organization_id,
           c.minute_start, c.minute_count, c.day_start, c.day_count, c.month_start, c.month_count, c.admitted, c.block
      from k left join counted c on true`;
  if (!rows[0]) return undefined;
  const { block, ...row } = rows[0];
  const { key, counter } = splitKeyCount(row);
  return counter ? { key, counter, block: block ?? 0 } : { key, block: 0 };
}

/**
 * Gives back `n` permits a daemon reserved and never handed out: subtracted from each window that
 * is still the one they were reserved in (a window that rolled on already forgot them).
 */
export async function returnPermits(sql: Sql, userId: string, n: number, windows: { minute: Date; day: Date; month: Date }): Promise<void> {
  await sql`
    update rate_limit_counters set
      minute_count = case when minute_start = ${windows.minute} then greatest(0, minute_count - ${n}::int) else minute_count end,
      day_count = case when day_start = ${windows.day} then greatest(0, day_count - ${n}::int) else day_count end,
      month_count = case when month_start = ${windows.month} then greatest(0, month_count - ${n}::int) else month_count end
     where user_id = ${userId}`;
}
