import type { Task } from 'graphile-worker';
import { dispatchDelivery } from './dispatch.js';
import type { AppDeps } from '../types.js';

interface DeliverPayload {
  webhookId: string;
  eventId: string;
  attempt: number;
}

/**
 * One automatic delivery attempt of one event. Receiver failures never throw: the attempt is
 * logged and, when retryable and retries remain, the next attempt is queued under the same job key
 * with a later run_at (our own schedule; graphile-worker's fixed backoff is not configurable).
 * Only internal faults (database errors) throw and use graphile-worker's own retries.
 */
export function deliverWebhookTask(deps: AppDeps): Task {
  return async (payload) => {
    const p = payload as DeliverPayload;
    const log = deps.logger.child({ job: 'deliver_webhook', eventId: p.eventId, webhookId: p.webhookId, attempt: p.attempt });
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
    if (out.result.ok) log.debug({ status: out.result.statusCode, ms: out.result.durationMs }, 'webhook delivered');
    else if (out.nextRetryAt) log.info({ error: out.result.error, nextRetryAt: out.nextRetryAt }, 'webhook delivery failed: will retry');
    else log.warn({ error: out.result.error }, 'webhook delivery failed: giving up');
  };
}
