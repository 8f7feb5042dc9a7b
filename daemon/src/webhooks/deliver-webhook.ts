import type { JobHelpers } from 'graphile-worker';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';
import {
  getEvent,
  MAX_RETRIES,
  recordDelivery,
  retryDelayMs,
  sendEvent,
  type AttemptResult,
  type DeliveryTrigger,
  type StoredEvent,
} from './delivery.js';
import type { WebhookRow } from './config.js';
import { openWebhookSecret, WebhookSecretUnreadableError } from './secrets.js';

/** graphile-worker's own retries, only for internal faults (database errors) of a delivery job. */
const JOB_MAX_ATTEMPTS = 3;

export interface DeliverWebhookPayload {
  webhookId: string;
  eventId: string;
  /** 1 = first; a retry re-adds the job under the same key with the next number and a later run_at. */
  attempt: number;
}

/** One job per event and webhook; a retry re-adds the job under the same key with a later run_at. */
export function deliveryJobKey(webhookId: string, eventId: string): string {
  return `webhook:${webhookId}:${eventId}`;
}

export type DispatchOutcome =
  | { sent: false; reason: 'webhook_gone' | 'inactive' | 'event_gone' }
  | { sent: true; deliveryId: string; attempt: number; url: string; result: AttemptResult; nextRetryAt: Date | null };

export interface DispatchRequest {
  webhookId: string;
  eventId: string;
  trigger: DeliveryTrigger;
  /** Automatic deliveries: the attempt this job performs (1 = first). Manual and test sends take the next number. */
  attempt?: number;
  /** Schedule the next automatic attempt on a retryable failure. */
  retries: boolean;
  /** Automatic deliveries stop while the webhook is inactive; explicit test and redeliver requests do not. */
  requireActive: boolean;
}

/** Decrypts the secret and sends; a secret that no longer opens is a failed attempt with nothing sent. */
async function attemptDelivery(deps: AppDeps, hook: WebhookRow, event: StoredEvent, attempt: number): Promise<AttemptResult> {
  let secret: string;
  try {
    secret = openWebhookSecret(deps.config.SIGNING_SECRET, hook.organization_id, hook.secret);
  } catch (err) {
    if (!(err instanceof WebhookSecretUnreadableError)) throw err;
    // Not retried: only a new secret (rotate-secret) or the old SIGNING_SECRET fixes it; redeliver afterwards.
    return { ok: false, retryable: false, statusCode: null, durationMs: 0, error: err.message, retryAfterMs: null };
  }
  return sendEvent(deps, { url: hook.url, secret }, event, attempt);
}

/**
 * One delivery attempt, end to end. The webhook row is held with FOR KEY SHARE for the duration of
 * the HTTP call: DELETE /webhooks/ waits for an attempt already on the wire (at most the delivery
 * timeout) and every attempt starting afterwards finds no webhook, so nothing is sent once DELETE
 * has answered. URL, secret and is_active changes are plain updates and do not wait.
 * The log row and the next retry's job commit together, so a crash before commit means the
 * graphile-worker job runs again (at-least-once) and nothing is recorded twice.
 */
export async function dispatchDelivery(deps: AppDeps, req: DispatchRequest): Promise<DispatchOutcome> {
  return deps.sql.begin(async (tx): Promise<DispatchOutcome> => {
    const hooks = await tx<WebhookRow[]>`select * from webhooks where id = ${req.webhookId} for key share`;
    const hook = hooks[0];
    if (!hook) return { sent: false, reason: 'webhook_gone' };
    if (req.requireActive && !hook.is_active) return { sent: false, reason: 'inactive' };
    const event = await getEvent(tx, hook.organization_id, req.eventId);
    if (!event) return { sent: false, reason: 'event_gone' };

    const prior = await tx<
      { n: number }[]
    >`select coalesce(max(attempt), 0)::int as n from webhook_deliveries where event_id = ${event.id}`;
    // Automatic attempts keep their own number (1…6) unless a manual redelivery already took it.
    const attempt = Math.max(req.attempt ?? 0, (prior[0]?.n ?? 0) + 1);
    const result = await attemptDelivery(deps, hook, event, attempt);

    const now = deps.clock.now();
    let nextRetryAt: Date | null = null;
    const automaticAttempt = req.attempt ?? 1;
    if (req.retries && !result.ok && result.retryable && automaticAttempt <= MAX_RETRIES) {
      const delay = retryDelayMs(automaticAttempt, deps.config.WEBHOOK_RETRY_BASE_MS, result.retryAfterMs);
      nextRetryAt = new Date(now.getTime() + delay);
      // run_at is compared with the database's clock, so it uses real time, not the (test-shiftable) service clock.
      await deliverWebhookJob.enqueue(
        tx,
        { webhookId: hook.id, eventId: event.id, attempt: automaticAttempt + 1 },
        { runAt: new Date(Date.now() + delay) },
      );
    }
    const deliveryId = await recordDelivery(tx, {
      organizationId: hook.organization_id,
      webhookId: hook.id,
      event,
      attempt,
      trigger: req.trigger,
      url: hook.url,
      result,
      nextRetryAt,
      now,
    });
    return { sent: true, deliveryId, attempt, url: hook.url, result, nextRetryAt };
  });
}

/**
 * One automatic delivery attempt of one event. Receiver failures never throw: the attempt is
 * logged and, when retryable and retries remain, the next attempt is queued under the same job key
 * with a later run_at (our own schedule; graphile-worker's fixed backoff is not configurable).
 * Only internal faults (database errors) throw and use graphile-worker's own retries.
 */
export function deliverWebhookTask(deps: AppDeps) {
  return async (p: DeliverWebhookPayload, _helpers: JobHelpers): Promise<void> => {
    const log = deps.logger.child({ job: deliverWebhookJob.identifier, eventId: p.eventId, webhookId: p.webhookId, attempt: p.attempt });
    const out = await dispatchDelivery(deps, {
      webhookId: p.webhookId,
      eventId: p.eventId,
      attempt: p.attempt,
      trigger: 'automatic',
      retries: true,
      requireActive: true,
    });
    if (!out.sent) {
      log.info({ reason: out.reason }, 'webhook delivery dropped');
      return;
    }
    if (out.result.ok) {
      log.debug({ status: out.result.statusCode, ms: out.result.durationMs }, 'webhook delivered');
      deps.webhookFailures.delivered(p.webhookId);
      return;
    }
    deps.webhookFailures.failed({
      webhookId: p.webhookId,
      url: out.url,
      eventId: p.eventId,
      attempt: out.attempt,
      error: out.result.error,
      willRetry: out.nextRetryAt !== null,
    });
  };
}

export const deliverWebhookJob = defineJob<DeliverWebhookPayload>({
  identifier: 'deliver_webhook',
  task: deliverWebhookTask,
  jobKey: (p) => deliveryJobKey(p.webhookId, p.eventId),
  defaults: { maxAttempts: JOB_MAX_ATTEMPTS },
});
