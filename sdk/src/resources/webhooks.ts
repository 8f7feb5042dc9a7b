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
    async get(opts?: CallOptions): Promise<WebhookConfig> {
      return (await t.call('GET', '/api/v1/webhooks/', (init) => t.raw.GET('/api/v1/webhooks/', init), opts)).data;
    },
    /**
     * Creates the webhook (the result then carries `secret`, shown only this once) or changes its
     * URL (no secret). Setting the same URL twice is harmless, so it is retried like a read.
     */
    async set(url: string, opts?: CallOptions): Promise<WebhookConfig | WebhookConfigWithSecret> {
      return (
        await t.call('POST', '/api/v1/webhooks/', (init) => t.raw.POST('/api/v1/webhooks/', { ...init, body: { url } }), {
          idempotent: true,
          ...opts,
        })
      ).data;
    },
    /** Activates or deactivates deliveries. */
    async update(body: { is_active: boolean }, opts?: CallOptions): Promise<WebhookConfig> {
      return (await t.call('PATCH', '/api/v1/webhooks/', (init) => t.raw.PATCH('/api/v1/webhooks/', { ...init, body }), opts)).data;
    },
    async delete(opts?: CallOptions): Promise<WebhookDeleted> {
      return (await t.call('DELETE', '/api/v1/webhooks/', (init) => t.raw.DELETE('/api/v1/webhooks/', init), opts)).data;
    },
    /** A new signing secret, effective at once and shown only here. */
    async rotateSecret(opts?: CallOptions): Promise<WebhookConfigWithSecret> {
      return (await t.call('POST', '/api/v1/webhooks/rotate-secret/', (init) => t.raw.POST('/api/v1/webhooks/rotate-secret/', init), opts))
        .data;
    },
    /** Delivers a signed `webhook.test` event now; rejects (500 WEBHOOK_TEST_FAILED) with the reason when the receiver does not answer 2xx. */
    async test(opts?: CallOptions): Promise<WebhookTestResult> {
      return (await t.call('POST', '/api/v1/webhooks/test/', (init) => t.raw.POST('/api/v1/webhooks/test/', init), opts)).data;
    },
    /** Delivery attempts, newest first; await for a page or `for await` over all. */
    deliveries(query: ListDeliveriesQuery = {}, opts?: CallOptions): PagePromise<WebhookDelivery> {
      return new PagePromise((cursor) =>
        t.call(
          'GET',
          '/api/v1/webhooks/deliveries/',
          (init) => t.raw.GET('/api/v1/webhooks/deliveries/', { ...init, params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }),
          opts,
        ),
      );
    },
    /** Sends a delivery's event again (same event id, fresh signature); returns the new attempt. */
    async redeliver(deliveryId: string, opts?: CallOptions): Promise<WebhookDelivery> {
      return (
        await t.call(
          'POST',
          '/api/v1/webhooks/deliveries/{id}/redeliver/',
          (init) => t.raw.POST('/api/v1/webhooks/deliveries/{id}/redeliver/', { ...init, params: { path: { id: deliveryId } } }),
          opts,
        )
      ).data;
    },
  };
}

export type WebhooksResource = ReturnType<typeof webhooksResource>;
