import type { KeyRow } from '../auth/keys.js';
import type { Sql } from '../db/client.js';
import { countForKey, LIMITS_ARRAY, type KeyCount } from './limiter.js';
import { TIER_LIMITS, type CounterRow } from './windows.js';

/** Requests counted by one statement at most: bounds the statement's parameters and work. */
const MAX_BATCH = 64;

// A user's requests in one statement are counted as if they had come one by one in the order of
// their key's limits, largest first (then arrival): concurrent requests have no order of their own,
// and in this one the admitted requests are a prefix (once one is refused, every later one has
// less room), so the k-th passes exactly when it has room for k. That needs every tier's limits
// to be at least the lower tiers' in each window, checked here.
const TIERS = Object.values(TIER_LIMITS);
for (const a of TIERS)
  for (const b of TIERS)
    if (a.minute < b.minute && (a.day > b.day || a.month > b.month))
      throw new Error('rate limits: tiers must be nested (key-counter.ts counts in order of the limits)');

interface Pending {
  keyHash: Buffer;
  now: Date;
  resolve(r: KeyCount | undefined): void;
  reject(err: unknown): void;
}

/**
 * The guard's counting for one daemon, by group commit: a request arriving while the daemon's
 * counting statement is in flight waits for it, and every request that waited is counted by the
 * next statement at once (countForKeys). Exactness is the single statement's: each user's row
 * is locked and updated once per statement, so across any number of processes exactly `limit`
 * requests pass per window, and each admitted request gets the count a one-by-one run would give
 * it (the X-RateLimit-Remaining values of a burst are the exact sequence, in some order).
 *
 * A request that finds nothing in flight goes at once, alone (countForKey): no added latency when
 * the daemon is idle. The win is under load, where k requests cost one round trip, one statement
 * and one commit instead of k (bench:limits).
 */
export class KeyCounter {
  private queue: Pending[] = [];
  private inFlight = false;
  /** Statements run and requests counted by them, so far: how much the grouping saved. */
  readonly stats = { statements: 0, requests: 0 };

  constructor(private readonly sql: Sql) {}

  /** Looks the key up and counts the request (see countForKey); undefined for an unknown key. */
  count(keyHash: Buffer, now: Date): Promise<KeyCount | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ keyHash, now, resolve, reject });
      if (!this.inFlight) this.next();
    });
  }

  private next(): void {
    // One statement counts in one minute: its window starts are computed once.
    const minute = minuteOf(this.queue[0]!.now);
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    for (const p of this.queue) (batch.length < MAX_BATCH && minuteOf(p.now) === minute ? batch : rest).push(p);
    this.queue = rest;
    this.inFlight = true;
    this.stats.statements++;
    this.stats.requests += batch.length;
    const done =
      batch.length === 1 ? countForKey(this.sql, batch[0]!.keyHash, batch[0]!.now).then((r) => [r]) : countForKeys(this.sql, batch);
    done
      .then(
        (results) => {
          for (const [i, p] of batch.entries()) p.resolve(results[i]);
        },
        (err: unknown) => {
          for (const p of batch) p.reject(err);
        },
      )
      .finally(() => {
        this.inFlight = false;
        if (this.queue.length) this.next();
      });
  }
}

const minuteOf = (d: Date) => Math.floor(d.getTime() / 60_000);

type Row = KeyRow & { ord: number; counts: boolean; pos: number | null; last_admitted: number | null } & {
  [K in keyof Omit<CounterRow, 'admitted'>]: CounterRow[K] | null;
};

/**
 * countForKey for several requests (all in one minute) in one statement: each is looked up by its
 * key hash at its own time, and each user's requests are counted together in one upsert of the
 * user's row, which admits the first `a` of them in the order above (`a` comes back as
 * last_admitted). Rows are upserted in user order, so two such statements (other daemons) take
 * their row locks in the same order and never deadlock. Returns one result per request, in order.
 */
export async function countForKeys(sql: Sql, reqs: { keyHash: Buffer; now: Date }[]): Promise<(KeyCount | undefined)[]> {
  const rows = await sql<Row[]>`
    with r as (
      select h.ord, decode(h.hex, 'hex') as key_hash, 'epoch'::timestamptz + h.ms * interval '1 millisecond' as now
        from unnest(string_to_array(${reqs.map((x) => x.keyHash.toString('hex')).join(',')}, ','),
                    string_to_array(${reqs.map((x) => x.now.getTime()).join(',')}, ',')::bigint[]) with ordinality as h(hex, ms, ord)
    ), k as (
      select r.ord, k.id as key_id, k.prefix, k.is_active as key_active, k.is_full_access, k.rate_tier,
             k.expires_at, k.last_used_at, u.id as user_id, u.is_active as user_active, u.is_admin,
             u.organization_id, t.l[o.i] as lm, t.l[o.i + 1] as ld, t.l[o.i + 2] as lmo,
             k.is_active and u.is_active and (k.expires_at is null or k.expires_at > r.now) as counts
        from r
        join api_keys k on k.key_hash = r.key_hash
        join users u on u.id = k.user_id
        cross join (select ${LIMITS_ARRAY}::int[] as l) t
        cross join lateral (select case k.rate_tier when 'free' then 1 when 'basic' then 4 when 'pro' then 7 end as i) o
    ), q as (
      select k.user_id, k.ord, k.lm, k.ld, k.lmo,
             row_number() over (partition by k.user_id order by k.lm desc, k.ld desc, k.lmo desc, k.ord) as pos
        from k
       where k.counts
    ), w as (
      select date_trunc('minute', min(r.now), 'UTC') as wm, date_trunc('day', min(r.now), 'UTC') as wd,
             date_trunc('month', min(r.now), 'UTC') as wmo
        from r
    ), counted as (
      insert into rate_limit_counters as c
        (user_id, minute_start, minute_count, day_start, day_count, month_start, month_count, admitted, last_admitted)
      select n.user_id, w.wm, n.a, w.wd, n.a, w.wmo, n.a, n.a > 0, n.a
        from (select q.user_id, (count(*) filter (where q.pos <= least(q.lm, q.ld, q.lmo)))::int as a
                from q group by q.user_id) n
       cross join w
       order by n.user_id
      on conflict (user_id) do update set
        (minute_start, minute_count, day_start, day_count, month_start, month_count, admitted, last_admitted) = (
          select greatest(c.minute_start, excluded.minute_start), cur.m + cur.a,
                 greatest(c.day_start, excluded.day_start), cur.d + cur.a,
                 greatest(c.month_start, excluded.month_start), cur.mo + cur.a,
                 cur.a > 0, cur.a
            from (select n.m, n.d, n.mo,
                         (select count(*)::int from q
                           where q.user_id = c.user_id and q.pos <= least(q.lm - n.m, q.ld - n.d, q.lmo - n.mo)) as a
                    from (select case when c.minute_start >= excluded.minute_start then c.minute_count else 0 end as m,
                                 case when c.day_start >= excluded.day_start then c.day_count else 0 end as d,
                                 case when c.month_start >= excluded.month_start then c.month_count else 0 end as mo) n) cur)
      returning user_id, minute_start, minute_count, day_start, day_count, month_start, month_count, last_admitted
    )
    select k.ord::int as ord, k.key_id, k.prefix, k.key_active, k.is_full_access, k.rate_tier, k.expires_at, k.last_used_at,
           k.user_id, k.user_active, k.is_admin, k.organization_id, k.counts, q.pos::int as pos,
           c.minute_start, c.minute_count, c.day_start, c.day_count, c.month_start, c.month_count, c.last_admitted
      from k
      left join q on q.ord = k.ord
      left join counted c on c.user_id = k.user_id and k.counts`;
  const out: (KeyCount | undefined)[] = reqs.map(() => undefined);
  for (const row of rows) {
    const { ord, counts, pos, minute_start, minute_count, day_start, day_count, month_start, month_count, last_admitted, ...key } = row;
    const i = ord - 1;
    if (!counts || pos === null || last_admitted === null) {
      out[i] = { key };
      continue;
    }
    // The first last_admitted requests passed, the k-th seeing the count before the statement plus k;
    // the rest were refused and see the final count.
    const admitted = pos <= last_admitted;
    const off = admitted ? pos - last_admitted : 0;
    out[i] = {
      key,
      counter: {
        minute_start: minute_start!,
        minute_count: minute_count! + off,
        day_start: day_start!,
        day_count: day_count! + off,
        month_start: month_start!,
        month_count: month_count! + off,
        admitted,
      },
    };
  }
  return out;
}
