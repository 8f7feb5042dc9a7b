import type { Sql } from '../db/client.js';
import { decodeDateSerialCursor, encodeDateSerialCursor } from '../keyset-cursor.js';
import { MCP_PROTOCOL_ENDPOINT } from './middleware.js';

/** Whose usage: an organization (full-access keys), a user (scoped keys) or one key. */
export type UsageScope = { kind: 'org'; id: string } | { kind: 'user'; id: string } | { kind: 'key'; id: string };

/** The API accepts any period from 1 day up to this; the web dashboard offers 7, 30 and 90. */
export const USAGE_MAX_DAYS = 90;

const DAY_MS = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const ms = (us: number, n: number) => (n ? Math.round(us / n / 10) / 100 : 0);

type Cursor = ReturnType<typeof decodeDateSerialCursor>;

const encodeCursor = (c: Cursor): string => encodeDateSerialCursor(c.ts, c.id);
const decodeCursor = (s: string): Cursor => decodeDateSerialCursor(s, 'Invalid cursor: pass the next_cursor of a previous response.');

/**
 * Who is reading the request log. Search text can be personal: a user always sees their own
 * searches' text; the organization's owner and admin users see every member's; for anyone else
 * another user's search shows `query: null` (the rest of the entry stays visible).
 */
export interface LogViewer {
  userId: string;
  seesAllQueries: boolean;
}

export async function logViewer(sql: Sql, userId: string): Promise<LogViewer> {
  const rows = await sql<{ sees_all: boolean }[]>`select (is_admin or role = 'owner') as sees_all from users where id = ${userId}`;
  return { userId, seesAllQueries: rows[0]?.sees_all ?? false };
}

export interface UsageOptions {
  days: number;
  now: Date;
  recentLimit: number;
  cursor?: string;
  viewer: LogViewer;
}

/**
 * Usage over the last `days` UTC days (today included): totals, a zero-filled daily series and
 * the per-key breakdown from the daily rollups (fast over 90 days and millions of requests),
 * and one page of the raw request log, newest first.
 */
export async function usageReport(sql: Sql, scope: UsageScope, o: UsageOptions) {
  const today = new Date(Date.UTC(o.now.getUTCFullYear(), o.now.getUTCMonth(), o.now.getUTCDate()));
  const from = new Date(today.getTime() - (o.days - 1) * DAY_MS);
  const rollupScope =
    scope.kind === 'org'
      ? sql`organization_id = ${scope.id}`
      : scope.kind === 'user'
        ? sql`user_id = ${scope.id}`
        : sql`key_id = ${scope.id}`;
  const keyScope =
    scope.kind === 'org'
      ? sql`k.user_id in (select id from users where organization_id = ${scope.id})`
      : scope.kind === 'user'
        ? sql`k.user_id = ${scope.id}`
        : sql`k.id = ${scope.id}`;

  const [daily, perKey, recent] = await Promise.all([
    sql<{ date: string; requests: number; errors: number; duration_us: number }[]>`
      select to_char(day, 'YYYY-MM-DD') as date, sum(requests)::float8 as requests, sum(errors)::float8 as errors,
             sum(total_duration_us)::float8 as duration_us
        from usage_daily
       where ${rollupScope} and day >= ${isoDay(from)}::date and day <= ${isoDay(today)}::date
       group by day`,
    sql<{ key_uuid: string; name: string; prefix: string; requests: number; errors: number; duration_us: number }[]>`
      select k.id as key_uuid, k.name, k.prefix, coalesce(sum(u.requests), 0)::float8 as requests,
             coalesce(sum(u.errors), 0)::float8 as errors, coalesce(sum(u.total_duration_us), 0)::float8 as duration_us
        from api_keys k
        left join usage_daily u on u.key_id = k.id and u.day >= ${isoDay(from)}::date and u.day <= ${isoDay(today)}::date
       where ${keyScope}
       group by k.id
      having k.is_active or sum(u.requests) > 0
       order by requests desc, k.created_at, k.id`,
    recentPage(sql, scope, from, o.recentLimit, o.viewer, o.cursor ? decodeCursor(o.cursor) : undefined),
  ]);

  const byDay = new Map(daily.map((d) => [d.date, d]));
  let requests = 0;
  let errors = 0;
  let durationUs = 0;
  const series = [];
  for (let t = from.getTime(); t <= today.getTime(); t += DAY_MS) {
    const date = isoDay(new Date(t));
    const d = byDay.get(date);
    requests += d?.requests ?? 0;
    errors += d?.errors ?? 0;
    durationUs += d?.duration_us ?? 0;
    series.push({ date, requests: d?.requests ?? 0, errors: d?.errors ?? 0 });
  }
  return {
    days: o.days,
    from: isoDay(from),
    to: isoDay(today),
    total_requests: requests,
    error_count: errors,
    avg_response_time_ms: ms(durationUs, requests),
    daily: series,
    per_key: perKey.map((k) => ({
      key_uuid: k.key_uuid,
      name: k.name,
      prefix: k.prefix,
      requests: k.requests,
      errors: k.errors,
      avg_response_time_ms: ms(k.duration_us, k.requests),
    })),
    recent,
  };
}

async function recentPage(sql: Sql, scope: UsageScope, from: Date, limit: number, viewer: LogViewer, cursor?: Cursor) {
  const logScope =
    scope.kind === 'org'
      ? sql`r.organization_id = ${scope.id}`
      : scope.kind === 'user'
        ? sql`r.user_id = ${scope.id}`
        : sql`r.key_id = ${scope.id}`;
  const rows = await sql<
    {
      id: string;
      ts: Date;
      key_uuid: string;
      key_prefix: string | null;
      endpoint: string;
      method: string;
      status: number;
      duration_us: number;
      query: string | null;
      result_count: number | null;
    }[]
  >`
    select r.id, r.ts, r.key_id as key_uuid, k.prefix as key_prefix, r.endpoint, r.method, r.status, r.duration_us,
           case when ${viewer.seesAllQueries} or r.user_id = ${viewer.userId} then r.query end as query, r.result_count
      from request_log r
      left join api_keys k on k.id = r.key_id
     where ${logScope} and r.ts >= ${from} and r.endpoint <> ${MCP_PROTOCOL_ENDPOINT}
       ${cursor ? sql`and (r.ts, r.id) < (${cursor.ts}::timestamptz, ${cursor.id})` : sql``}
     order by r.ts desc, r.id desc
     limit ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      timestamp: r.ts.toISOString(),
      key_uuid: r.key_uuid,
      key_prefix: r.key_prefix ?? '',
      endpoint: r.endpoint,
      method: r.method,
      status: r.status,
      response_time_ms: Math.round(r.duration_us / 10) / 100,
      query: r.query,
      result_count: r.result_count,
    })),
    next_cursor: rows.length > limit && last ? encodeCursor({ ts: last.ts.toISOString(), id: Number(last.id) }) : null,
  };
}
