import { PagePromise } from '../pagination.js';
import type { CallOptions, Transport } from '../transport.js';
import type {
  ListDeliveriesQuery,
  WebhookConfig,
  WebhookConfigWithSecret,
  WebhookDeleted,
  WebhookDelivery,
  WebhookTestResult,
} from '../types.js';

export function webhooksResource(t: Transport) {
  return {
    /** The organization's webhook; `{configured: false}` when there is none. Never includes the secret. */
    get(opts?: CallOptions): Promise<WebhookConfig> {
      return t.get('/api/v1/webhooks/', opts);
    },
    /**
     * Creates the webhook (the result then carries `secret`, shown only this once) or changes its
     * URL (no secret). Setting the same URL twice is harmless, so it is retried like a read.
     */
    set(url: string, opts?: CallOptions): Promise<WebhookConfig | WebhookConfigWithSecret> {
      return t.post('/api/v1/webhooks/', { body: { url }, idempotent: true, ...opts });
    },
    /** Activates or deactivates deliveries. */
    update(body: { is_active: boolean }, opts?: CallOptions): Promise<WebhookConfig> {
      return t.patch('/api/v1/webhooks/', { body, ...opts });
    },
    delete(opts?: CallOptions): Promise<WebhookDeleted> {
      return t.delete('/api/v1/webhooks/', opts);
    },
    /** A new signing secret, effective at once and shown only here. */
    rotateSecret(opts?: CallOptions): Promise<WebhookConfigWithSecret> {
      return t.post('/api/v1/webhooks/rotate-secret/', opts);
    },
    /** Delivers a signed `webhook.test` event now; rejects (500 WEBHOOK_TEST_FAILED) with the reason when the receiver does not answer 2xx. */
    test(opts?: CallOptions): Promise<WebhookTestResult> {
      return t.post('/api/v1/webhooks/test/', opts);
    },
    /** Delivery attempts, newest first; await for a page or `for await` over all. */
    deliveries(query: ListDeliveriesQuery = {}, opts?: CallOptions): PagePromise<WebhookDelivery> {
      return new PagePromise((cursor) =>
        t.getWithResponse('/api/v1/webhooks/deliveries/', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } }, ...opts }),
      );
    },
    /** Sends a delivery's event again (same event id, fresh signature); returns the new attempt. */
    redeliver(deliveryId: string, opts?: CallOptions): Promise<WebhookDelivery> {
      return t.post('/api/v1/webhooks/deliveries/{id}/redeliver/', { params: { path: { id: deliveryId } }, ...opts });
    },
  };
}

export type WebhooksResource = ReturnType<typeof webhooksResource>;
