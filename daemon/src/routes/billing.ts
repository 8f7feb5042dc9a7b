import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import { requireFullAccess } from '../auth/access.js';
import { listInvoices } from '../billing/invoices.js';
import { planSummary } from '../billing/summary.js';
import { AppError } from '../errors.js';
import type { AppDeps } from '../types.js';
import { errorResponses, jsonResponse, Timestamp } from './router.js';
import { withRateLimitHeaders } from './usage.js';

const PlanId = z.enum(['free', 'starter', 'pro']);

const PlanStatus = z
  .object({
    plan: PlanId,
    name: z.string(),
    price_cents: z.number().int().openapi({ description: 'Monthly fee: 0, 2900 or 9900.' }),
    included_queries: z.number().int().openapi({ description: 'Searches per cycle included in the fee: 1,000 / 10,000 / 100,000.' }),
    overage_rate_millicents: z.number().int().nullable().openapi({
      description:
        'Price per search beyond the included ones in millicents (1/1000 ¢): Starter 200 ($0.002), Pro 100 ($0.001); null on Free.',
    }),
    hard_quota: z.boolean().openapi({
      description: 'True on Free: once the included searches are used, searches answer 429 RATE_LIMIT_EXCEEDED until cycle_end.',
    }),
    cycle_start: Timestamp,
    cycle_end: Timestamp,
    used_queries: z.number().int().openapi({
      description: 'Searches counted in this cycle so far (REST /search and MCP search_documents; failed searches are not counted).',
    }),
    remaining_included_queries: z.number().int(),
    overage_queries: z.number().int(),
    overage_cents: z.number().int().openapi({ description: 'Overage accrued so far, in cents (rounded half up).' }),
    projected_queries: z.number().int().openapi({ description: 'Searches by cycle end at the pace so far.' }),
    projected_overage_cents: z.number().int(),
    projected_total_cents: z.number().int().openapi({ description: 'Fee plus projected overage.' }),
  })
  .openapi('PlanStatus');

const Invoice = z
  .object({
    uuid: z.string().openapi({ format: 'uuid' }),
    organization_uuid: z.string().openapi({ format: 'uuid' }),
    period_start: Timestamp,
    period_end: Timestamp,
    plan: PlanId.openapi({ description: 'Plan in force when the cycle ended.' }),
    currency: z.string().openapi({ example: 'usd' }),
    plan_fee_cents: z.number().int(),
    included_queries: z.number().int(),
    used_queries: z.number().int().openapi({ description: 'Billable searches of the cycle, from the request log.' }),
    overage_queries: z.number().int(),
    overage_rate_millicents: z.number().int().nullable(),
    overage_cents: z
      .number()
      .int()
      .openapi({ description: 'overage_queries × rate in millicents, divided by 1000 and rounded half up to a whole cent.' }),
    total_cents: z.number().int().openapi({ description: 'plan_fee_cents + overage_cents.' }),
    status: z.enum(['pending', 'recorded', 'sent', 'failed']).openapi({
      description:
        '`recorded`: kept locally (default processor, or nothing to charge); `sent`: created and finalized at Stripe; `failed`: retried on the next closing run.',
    }),
    processor: z.enum(['local', 'stripe']),
    external_id: z.string().nullable().openapi({ description: 'Stripe invoice id when sent to Stripe.' }),
    created_at: Timestamp,
  })
  .openapi('Invoice');

const InvoiceQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: 'limit', in: 'query' }, description: '1–100, default 24.' }),
  before: z
    .string()
    .datetime({ offset: true, error: 'before must be an ISO timestamp (period_start of the last invoice of the previous page).' })
    .optional()
    .openapi({
      param: { name: 'before', in: 'query' },
      description: 'Only invoices whose period started before this time: pass the last `period_start` of the previous page.',
    }),
});

const BILLING_NOTES =
  'Plans: Free ($0, 1,000 searches per cycle, no overage), Starter ($29, 10,000, $0.002 per extra search), Pro ($99, 100,000, $0.001 per extra search). Billing cycles are monthly from the organization’s anchor date at 00:00 UTC. Searches (POST /api/v1/search/ and the MCP tool search_documents) count; a search that fails is not counted. On Free, searches beyond the quota answer 429 RATE_LIMIT_EXCEEDED with a message saying the plan quota is used up and Retry-After until the next cycle; other endpoints keep working. Paid plans never block: the overage is invoiced. An invoice is produced for every ended cycle. Full-access keys only (403 SCOPED_KEY_FORBIDDEN).';

const tags = ['Billing'];
const routes = {
  plan: createRoute({
    method: 'get',
    path: '/api/v1/billing/plan',
    operationId: 'getPlan',
    tags,
    summary: 'Plan and current cycle usage',
    description: BILLING_NOTES,
    responses: {
      200: withRateLimitHeaders(jsonResponse(PlanStatus, 'Plan, cycle and usage so far')),
      ...errorResponses(['SCOPED_KEY_FORBIDDEN']),
    },
  }),
  invoices: createRoute({
    method: 'get',
    path: '/api/v1/billing/invoices',
    operationId: 'listInvoices',
    tags,
    summary: 'Invoices of the organization',
    description: `Newest cycle first. ${BILLING_NOTES}`,
    request: { query: InvoiceQuery },
    responses: {
      200: withRateLimitHeaders(
        jsonResponse(z.object({ items: z.array(Invoice), next_before: Timestamp.nullable() }).openapi('InvoiceList'), 'Invoices'),
      ),
      ...errorResponses(['VALIDATION_FAILED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
};

export function registerBillingRoutes(app: App, deps: AppDeps): void {
  app.openapi(routes.plan, async (c) => {
    const caller = c.get('caller');
    requireFullAccess(caller, 'read billing information');
    return c.json(await planSummary(deps.sql, caller.orgId, deps.clock.now()), 200);
  });
  app.openapi(routes.invoices, async (c) => {
    const caller = c.get('caller');
    requireFullAccess(caller, 'read billing information');
    const q = c.req.valid('query');
    const limit = q.limit ?? 24;
    const before = q.before ? new Date(q.before) : undefined;
    if (before && Number.isNaN(before.getTime()))
      throw new AppError('VALIDATION_FAILED', 'Invalid before.', { before: ['Invalid timestamp.'] });
    const items = await listInvoices(deps.sql, { orgId: caller.orgId, limit, before });
    return c.json({ items, next_before: items.length === limit ? items.at(-1)!.period_start : null }, 200);
  });
}
