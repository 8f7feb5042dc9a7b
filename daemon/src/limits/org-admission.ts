import { AppError } from '../errors.js';

export interface AdmissionLimits {
  /** Search and list requests of one organization running at once while others search too (SEARCH_CONCURRENCY_PER_ORG). */
  perOrg: number;
  /** The same for an organization alone: no other one has run a search or list within `contendedMs` (DB_POOL_MAX). */
  alone: number;
  /** How recently another organization must have searched for the `perOrg` bound to hold. */
  contendedMs: number;
  /** Requests of one organization waiting for a slot; one more is refused at once (SEARCH_QUEUE_PER_ORG). */
  queue: number;
  /** How long a request waits for a slot before it is refused. */
  waitMs: number;
}

/**
 * The default of SEARCH_CONCURRENCY_PER_ORG: a quarter of the pool, at least one. A search runs its
 * text and vector statements at once, so one organization holds at most half the connections and
 * every other organization always finds some free.
 */
export function defaultSearchConcurrency(poolMax: number): number {
  return Math.max(1, Math.floor(poolMax / 4));
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

interface OrgState {
  active: number;
  waiting: Waiter[];
}

/**
 * Per-organization admission of search and list requests, held by the daemon (deps). An
 * organization alone (no other one searched within `contendedMs`) runs up to `alone` at once, so a
 * single tenant keeps the whole pool; once organizations share the daemon, at most `perOrg` of one
 * organization's start at once, up to `queue` more wait in arrival order for at most
 * `waitMs`, and the rest answer 429 RATE_LIMIT_EXCEEDED with Retry-After. One organization's
 * costly requests (the maximal filter at any concurrency) then wait for each other instead of
 * filling the pool and the CPU other organizations' searches need.
 */
export class OrgAdmission {
  private readonly orgs = new Map<string, OrgState>();
  /** When each organization last started a request (pruned past `contendedMs`). */
  private readonly seen = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** Runs `work` once one of the organization's slots is free; throws 429 when none frees in time. */
  async run<T>(orgId: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(orgId);
    try {
      return await work();
    } finally {
      this.release(orgId);
    }
  }

  /** A stream's items, read while holding one of the organization's slots (a streamed list holds its connection throughout). */
  async *stream<T>(orgId: string, open: () => AsyncGenerator<T>): AsyncGenerator<T> {
    await this.acquire(orgId);
    try {
      yield* open();
    } finally {
      this.release(orgId);
    }
  }

  /** Requests of the organization running and waiting now. */
  load(orgId: string): { active: number; waiting: number } {
    const s = this.orgs.get(orgId);
    return { active: s?.active ?? 0, waiting: s?.waiting.length ?? 0 };
  }

  private acquire(orgId: string): Promise<void> {
    let s = this.orgs.get(orgId);
    if (!s) {
      s = { active: 0, waiting: [] };
      this.orgs.set(orgId, s);
    }
    if (s.active < this.cap(orgId)) {
      s.active++;
      this.seen.set(orgId, Date.now());
      return Promise.resolve();
    }
    if (s.waiting.length >= this.limits.queue) return Promise.reject(this.refusal('queue'));
    const state = s;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        // The slot passes from the request that released it: `active` is unchanged.
        admit: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          state.waiting.splice(state.waiting.indexOf(waiter), 1);
          this.forget(orgId, state);
          reject(this.refusal('wait'));
        }, this.limits.waitMs),
      };
      state.waiting.push(waiter);
    });
  }

  /** `alone` while no other organization has requests running, waiting or started within `contendedMs`; else `perOrg`. */
  private cap(orgId: string): number {
    const since = Date.now() - this.limits.contendedMs;
    let shared = false;
    for (const [other, at] of this.seen) {
      if (at < since && !this.orgs.has(other)) this.seen.delete(other);
      else if (other !== orgId) shared = true;
    }
    return shared ? this.limits.perOrg : Math.max(this.limits.perOrg, this.limits.alone);
  }

  private release(orgId: string): void {
    const s = this.orgs.get(orgId);
    if (!s) return;
    const next = s.waiting.shift();
    if (next) {
      this.seen.set(orgId, Date.now());
      next.admit();
      return;
    }
    s.active--;
    this.forget(orgId, s);
  }

  private forget(orgId: string, s: OrgState): void {
    if (!s.active && !s.waiting.length) this.orgs.delete(orgId);
  }

  private refusal(why: 'queue' | 'wait'): AppError {
    const { perOrg, queue, waitMs } = this.limits;
    const detail =
      why === 'queue'
        ? `${perOrg} are running and ${queue} waiting (SEARCH_CONCURRENCY_PER_ORG, SEARCH_QUEUE_PER_ORG)`
        : `none of the ${perOrg} running (SEARCH_CONCURRENCY_PER_ORG) finished within ${waitMs} ms`;
    return new AppError(
      'RATE_LIMIT_EXCEEDED',
      `Too many concurrent searches and lists for this organization: ${detail}. Retry after 1 s, or send fewer at once.`,
      undefined,
      { 'Retry-After': '1' },
    );
  }
}
