import { requireFullAccess } from '../auth/access.js';
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import { decodeDateIdCursor, encodeDateIdCursor } from '../keyset-cursor.js';
import type { AppDeps, Caller } from '../types.js';
import { dispatchDelivery, type DispatchOutcome } from './deliver-webhook.js';
import type { DeliveryTrigger } from './delivery.js';
import { requireWebhook } from './config.js';
import type { EventType, StoredEventPayload } from './event-schema.js';

export const TEST_EVENT: EventType = 'webhook.test';

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  trigger: DeliveryTrigger;
  url: string;
  status_code: number | null;
  success: boolean;
  duration_ms: number;
  error: string | null;
  next_retry_at: Date | null;
  created_at: Date;
}

export function deliveryJson(r: DeliveryRow) {
  return {
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    attempt: r.attempt,
    trigger: r.trigger,
    url: r.url,
    status_code: r.status_code,
    success: r.success,
    duration_ms: r.duration_ms,
    error: r.error,
    next_retry_at: r.next_retry_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
  };
}
export type DeliveryJson = ReturnType<typeof deliveryJson>;

const encodeCursor = (r: DeliveryRow): string => encodeDateIdCursor(r.created_at, r.id);
const decodeCursor = decodeDateIdCursor;

/** The organization's delivery attempts, newest first, keyset-paginated on (created_at, id). */
export async function listDeliveries(deps: AppDeps, caller: Caller, q: { limit: number; cursor?: string; event_id?: string }) {
  requireFullAccess(caller, 'read webhook deliveries');
  const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
  if (q.event_id !== undefined && !isUuid(q.event_id)) return { page: [], next: null };
  const sql = deps.sql;
  const rows = await sql<DeliveryRow[]>`
    select id, event_id, event_type, attempt, trigger, url, status_code, success, duration_ms, error, next_retry_at, created_at
      from webhook_deliveries
     where organization_id = ${caller.orgId}
       ${q.event_id ? sql`and event_id = ${q.event_id}` : sql``}
       ${cursor ? sql`and (created_at, id) < (${cursor.createdAt}, ${cursor.id})` : sql``}
     order by created_at desc, id desc
     limit ${q.limit + 1}`;
  const page = rows.slice(0, q.limit);
  return { page: page.map(deliveryJson), next: rows.length > q.limit ? encodeCursor(page[page.length - 1]!) : null };
}

async function deliveryById(deps: AppDeps, orgId: string, id: string): Promise<DeliveryRow> {
  const rows = isUuid(id)
    ? await deps.sql<DeliveryRow[]>`
        select id, event_id, event_type, attempt, trigger, url, status_code, success, duration_ms, error, next_retry_at, created_at
          from webhook_deliveries where id = ${id} and organization_id = ${orgId}`
    : [];
  if (!rows[0]) throw new AppError('DELIVERY_NOT_FOUND', 'Webhook delivery not found.');
  return rows[0];
}

function notConfigured(): AppError {
  return new AppError('WEBHOOK_NOT_CONFIGURED', 'No webhook is configured for this organization. Create one with POST /api/v1/webhooks/.');
}

/** Sends the delivery's event again now, to the current webhook, as a new (manual) attempt without automatic retries. */
export async function redeliver(deps: AppDeps, caller: Caller, deliveryId: string): Promise<DeliveryJson> {
  requireFullAccess(caller, 'redeliver webhook events');
  const original = await deliveryById(deps, caller.orgId, deliveryId);
  const hook = await requireWebhook(deps.sql, caller.orgId);
  const out = await dispatchDelivery(deps, {
    webhookId: hook.id,
    eventId: original.event_id,
    trigger: 'manual',
    retries: false,
    requireActive: false,
  });
  if (!out.sent)
    throw out.reason === 'event_gone'
      ? new AppError('DELIVERY_NOT_FOUND', 'The event of this delivery no longer exists.')
      : notConfigured();
  return deliveryJson(await deliveryById(deps, caller.orgId, out.deliveryId));
}

function failureReason(out: Extract<DispatchOutcome, { sent: true }>): string {
  return out.result.error ?? `Receiver answered HTTP ${out.result.statusCode}`;
}

/**
 * Records a `webhook.test` event and delivers it synchronously, once, whatever is_active says,
 * so a receiver can be checked before it is enabled. Failures become 500 WEBHOOK_TEST_FAILED.
 */
export async function sendTestEvent(deps: AppDeps, caller: Caller) {
  requireFullAccess(caller, 'test webhooks');
  const hook = await requireWebhook(deps.sql, caller.orgId);
  const now = deps.clock.now();
  const payload: StoredEventPayload = {
    event: TEST_EVENT,
    timestamp: now.toISOString(),
    data: { message: 'Test event from docsift: your webhook endpoint is reachable and verifies signatures.', webhook_url: hook.url },
  };
  const rows = await deps.sql<{ id: string }[]>`
    insert into events (organization_id, type, payload, created_at) values (${caller.orgId}, ${TEST_EVENT}, ${deps.sql.json(payload as never)}, ${now}) returning id`;
  const eventId = rows[0]!.id;
  const out = await dispatchDelivery(deps, { webhookId: hook.id, eventId, trigger: 'test', retries: false, requireActive: false });
  if (!out.sent) throw notConfigured();
  if (!out.result.ok) throw new AppError('WEBHOOK_TEST_FAILED', `Test delivery to ${hook.url} failed: ${failureReason(out)}`);
  return {
    delivered: true as const,
    event_id: eventId,
    delivery_id: out.deliveryId,
    status_code: out.result.statusCode!,
    duration_ms: out.result.durationMs,
  };
}
