// Web UI actions that do the API's work are metered like the API: searches count against the
// user's rate limit and the plan's quota and are written to the request log (so they are billed
// and appear on the usage page, filed under the session instead of a key); uploads and downloads
// count against the rate limit. Page views and small form posts are not API traffic.
import { NO_KEY_ID } from '../auth/sessions.js';
import { AppError } from '../errors.js';
import { limitCaller } from '../limits/caller-limit.js';
import { search, type SearchRequest } from '../search/service.js';
import type { AppDeps, Caller } from '../types.js';

/** The endpoint under which UI searches appear in the request log. */
export const WEB_SEARCH_ENDPOINT = '/app/search';
/** The request log's key id for traffic of a signed-in person rather than an API key. */
export const SESSION_KEY_ID = NO_KEY_ID;

export type SearchOutcome = Awaited<ReturnType<typeof search>>;

/**
 * search() as the API runs it (rate limit, then the quota admission and refund inside search),
 * plus the request log record the API's middleware would write: billable once it produced results.
 */
export async function meteredSearch(deps: AppDeps, caller: Caller, req: SearchRequest): Promise<SearchOutcome> {
  const ts = deps.clock.now();
  const started = performance.now();
  let status = 200;
  let result: SearchOutcome | undefined;
  try {
    await limitCaller(deps, caller);
    result = await search(deps, caller, req);
    return result;
  } catch (err) {
    status = err instanceof AppError ? err.status : 500;
    throw err;
  } finally {
    if (deps.config.METERING_ENABLED) {
      deps.usageLog.push({
        ts,
        organizationId: caller.orgId,
        userId: caller.userId,
        keyId: caller.keyId,
        method: 'GET',
        endpoint: WEB_SEARCH_ENDPOINT,
        status,
        durationUs: (performance.now() - started) * 1000,
        query: req.query,
        resultCount: result?.count ?? null,
        billable: result !== undefined,
      });
    }
  }
}
