import type { Sql } from '../db/client.js';

/** Failures per email and client address within the window before sign-in answers 429. */
export const MAX_FAILURES_PER_EMAIL_IP = 5;
/** Failures from one address across all emails (password spraying) before it answers 429. */
export const MAX_FAILURES_PER_IP = 50;
export const FAILURE_WINDOW_MS = 15 * 60_000;

export interface ThrottleState {
  limited: boolean;
  retryAfterSec: number;
}

/** Whether this email+address (or this address overall) has failed too often recently. */
export async function signInThrottled(sql: Sql, email: string, ip: string, now: Date): Promise<ThrottleState> {
  const since = new Date(now.getTime() - FAILURE_WINDOW_MS);
  const rows = await sql<{ pair: number; pair_oldest: Date | null; by_ip: number; ip_oldest: Date | null }[]>`
    select count(*) filter (where email = ${email})::int as pair,
           min(at) filter (where email = ${email}) as pair_oldest,
           count(*)::int as by_ip,
           min(at) as ip_oldest
      from sign_in_failures
     where ip = ${ip} and at > ${since}`;
  const r = rows[0]!;
  const retry = (oldest: Date | null) =>
    Math.max(1, Math.ceil(((oldest?.getTime() ?? now.getTime()) + FAILURE_WINDOW_MS - now.getTime()) / 1000));
  if (r.pair >= MAX_FAILURES_PER_EMAIL_IP) return { limited: true, retryAfterSec: retry(r.pair_oldest) };
  if (r.by_ip >= MAX_FAILURES_PER_IP) return { limited: true, retryAfterSec: retry(r.ip_oldest) };
  return { limited: false, retryAfterSec: 0 };
}

export async function recordSignInFailure(sql: Sql, email: string, ip: string, now: Date): Promise<void> {
  await sql`insert into sign_in_failures (email, ip, at) values (${email.slice(0, 320)}, ${ip}, ${now})`;
  // Old rows serve no purpose; trimming here keeps the table at one window's worth.
  await sql`delete from sign_in_failures where at <= ${new Date(now.getTime() - FAILURE_WINDOW_MS)}`;
}

/** A successful sign-in forgives this pair's earlier typos. */
export async function clearSignInFailures(sql: Sql, email: string, ip: string): Promise<void> {
  await sql`delete from sign_in_failures where email = ${email} and ip = ${ip}`;
}
