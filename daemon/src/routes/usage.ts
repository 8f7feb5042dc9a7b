import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import { AppError } from '../errors.js';
import { logViewer, USAGE_MAX_DAYS, usageReport, type UsageScope } from '../usage/queries.js';
import type { AppDeps, Caller } from '../types.js';
import { errorResponses, jsonResponse, Timestamp, UuidParam } from './router.js';
import { isUuid } from '../ids.js';

const UsageQuery = z.object({
  days: z.coerce
    .number({ error: 'days must be a whole number from 1 to 90.' })
    .int('days must be a whole number from 1 to 90.')
    .min(1, 'days must be a whole number from 1 to 90.')
    .max(USAGE_MAX_DAYS, 'days must be a whole number from 1 to 90.')
    .optional()
    .openapi({
      param: { name: 'days', in: 'query' },
      description:
        'Period: the last `days` UTC days, today included — any whole number from 1 to 90 (the raw request log is kept 90 days; 7, 30 and 90 are the usual periods). Default 30; other values answer 400 VALIDATION_FAILED.',
      example: 30,
    }),
  recent_limit: z.coerce
    .number()
    .int('recent_limit must be an integer.')
    .min(1, 'recent_limit must be at least 1.')
    .max(100, 'recent_limit must be at most 100.')
    .optional()
    .openapi({ param: { name: 'recent_limit', in: 'query' }, description: 'Request-log entries per page (1–100, default 20).' }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description: '`recent.next_cursor` of the previous page.' }),
});

const DailyPoint = z.object({
  date: z.string().openapi({ example: '2026-01-31', description: 'UTC day.' }),
  requests: z.number().int(),
  errors: z.number().int(),
});
const KeyUsage = z
  .object({
    key_uuid: z.string().openapi({ format: 'uuid' }),
    name: z.string(),
    prefix: z.string(),
    requests: z.number().int(),
    errors: z.number().int(),
    avg_response_time_ms: z.number(),
  })
  .openapi('KeyUsage');
const RequestLogEntry = z
  .object({
    timestamp: Timestamp,
    key_uuid: z.string().openapi({ format: 'uuid' }),
    key_prefix: z.string(),
    endpoint: z.string().openapi({ description: 'Route pattern, e.g. `/api/v1/search` or `/mcp`.', example: '/api/v1/documents/{uuid}' }),
    method: z.string(),
    status: z.number().int(),
    response_time_ms: z.number(),
    query: z.string().nullable().openapi({
      description:
        "Search text for searches (REST /search and MCP search_documents); null otherwise. Another user's search text is shown only to the organization's owner and admin users: for other callers it is null (the entry, its result_count and the rest stay visible).",
    }),
    result_count: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Results returned by a search; null otherwise or when the search failed.' }),
  })
  .openapi('RequestLogEntry');
export const UsageStatsSchema = z
  .object({
    days: z.number().int(),
    from: z.string().openapi({ description: 'First UTC day of the period.' }),
    to: z.string().openapi({ description: 'Last UTC day of the period (today).' }),
    total_requests: z.number().int(),
    error_count: z.number().int().openapi({ description: 'Responses with status 400 or above (429 included).' }),
    avg_response_time_ms: z.number().openapi({ description: 'Mean server time per request; 0 without requests.' }),
    daily: z.array(DailyPoint).openapi({ description: 'One entry per day of the period, oldest first, zero-filled.' }),
    per_key: z.array(KeyUsage).openapi({ description: 'Keys in scope that are active or were used in the period, busiest first.' }),
    recent: z
      .object({ items: z.array(RequestLogEntry), next_cursor: z.string().nullable() })
      .openapi({ description: 'The request log of the period, newest first; pass next_cursor as `cursor` for the next page.' }),
  })
  .openapi('UsageStats');

/**
 * The rate-limit headers every authenticated response carries (documented on the usage and
 * billing operations; they apply to all of /api/v1 and /mcp).
 */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed in the reported window. Limits are per user (all keys of a user share them) and come from the calling key’s tier: Free 10/minute, 1,000/day, 10,000/month; Basic 60/10,000/100,000; Pro 300/100,000/1,000,000. Windows are fixed: the current UTC minute, UTC day and calendar month. The reported window is the one with the fewest requests remaining (ties: the one that resets first); on a 429, the full window that frees a slot last. Refused requests (429) do not count. /mcp counts like any API request. Requests without a valid key (401 answers, the schema and docs) count instead against a budget per client address and API process, 60 a minute by default (ANONYMOUS_RATE_LIMIT_PER_MINUTE), and report that budget; past it they answer 429. So do the answers no key could be checked for: 503s while the database is unreachable and 404s outside /api/v1 (GET /api/, unversioned paths), which are never refused for it. A plan-quota 429 (searches past a plan without overage) reports the quota instead: its included searches, 0 remaining, and the end of the billing cycle. Health checks carry no such headers.',
    schema: { type: 'integer' as const },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the reported window after this one.', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) when the reported window ends and its count starts again from zero.',
    schema: { type: 'integer' as const },
  },
};

export function withRateLimitHeaders<T extends object>(response: T): T & { headers: typeof RATE_LIMIT_HEADERS } {
  return { ...response, headers: RATE_LIMIT_HEADERS };
}

const USAGE_NOTES = `Authenticated requests (REST and /mcp, errors and 429s included) are recorded with key, endpoint (route pattern), method, status and response time, plus query text and result count for searches. Search text is private to the user who searched (any of their keys) and to the organization's owner and admin users; for other members' searches \`query\` is null. Totals, daily series and the per-key breakdown come from daily rollups; the request log itself is kept for USAGE_RETENTION_DAYS (default 90). Records are written in batches about once a second, so the last second may be missing.`;

const tags = ['API keys'];
const routes = {
  usage: createRoute({
    method: 'get',
    path: '/api/v1/keys/usage',
    operationId: 'getUsage',
    tags,
    summary: 'Usage statistics',
    description: `Full-access keys see their whole organization; scoped keys see their own user (all of that user's keys). ${USAGE_NOTES}`,
    request: { query: UsageQuery },
    responses: {
      200: withRateLimitHeaders(jsonResponse(UsageStatsSchema, 'Usage of the organization or user')),
      ...errorResponses(['VALIDATION_FAILED']),
    },
  }),
  keyUsage: createRoute({
    method: 'get',
    path: '/api/v1/keys/{uuid}/usage',
    operationId: 'getKeyUsage',
    tags,
    summary: 'Usage statistics of one key',
    description: `One key of the caller's user (404 API_KEY_NOT_FOUND otherwise). Scoped keys may read only their own key's usage (403 SCOPED_KEY_FORBIDDEN for other keys). ${USAGE_NOTES}`,
    request: { params: UuidParam, query: UsageQuery },
    responses: {
      200: withRateLimitHeaders(jsonResponse(UsageStatsSchema, 'Usage of the key')),
      ...errorResponses(['VALIDATION_FAILED', 'API_KEY_NOT_FOUND', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
};

async function keyScope(deps: AppDeps, caller: Caller, keyId: string): Promise<UsageScope> {
  if (!caller.isFullAccess && keyId !== caller.keyId) {
    throw new AppError('SCOPED_KEY_FORBIDDEN', 'Scoped API keys cannot read the usage of other keys. Use a full-access key.');
  }
  const rows = isUuid(keyId) ? await deps.sql`select id from api_keys where id = ${keyId} and user_id = ${caller.userId}` : [];
  if (!rows.length) throw new AppError('API_KEY_NOT_FOUND', 'API key not found.');
  return { kind: 'key', id: keyId };
}

export function registerUsageRoutes(app: App, deps: AppDeps): void {
  const report = async (caller: Caller, scope: UsageScope, q: z.infer<typeof UsageQuery>) =>
    // Reports read the replica when there is one (they may trail the primary slightly).
    deps.reads.run(async (sql) =>
      usageReport(sql, scope, {
        days: q.days ?? 30,
        now: deps.clock.now(),
        recentLimit: q.recent_limit ?? 20,
        cursor: q.cursor,
        viewer: await logViewer(sql, caller.userId),
      }),
    );
  app.openapi(routes.usage, async (c) => {
    const caller = c.get('caller');
    const scope: UsageScope = caller.isFullAccess ? { kind: 'org', id: caller.orgId } : { kind: 'user', id: caller.userId };
    return c.json(await report(caller, scope, c.req.valid('query')), 200);
  });
  app.openapi(routes.keyUsage, async (c) => {
    const caller = c.get('caller');
    const scope = await keyScope(deps, caller, c.req.valid('param').uuid);
    return c.json(await report(caller, scope, c.req.valid('query')), 200);
  });
}
