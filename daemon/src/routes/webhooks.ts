import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import { deleteWebhook, getWebhookConfig, putWebhook, rotateWebhookSecret, setWebhookActive, WEBHOOK_URL_MAX } from '../webhooks/config.js';
import { listDeliveries, redeliver, sendTestEvent } from '../webhooks/log.js';
import { webhookEventSchema } from '../webhooks/event-schema.js';
import type { AppDeps } from '../types.js';
import { errorResponses, jsonBody, jsonResponse, Timestamp, withoutNul, setNextPage } from './router.js';

const tags = ['Webhooks'];

const SIGNING = `**Signature.** Every delivery is an HTTP POST with a JSON body (\`WebhookEvent\`) and the headers
\`X-Service-Timestamp\` (unix seconds), \`X-Service-Signature: sha256=<hex>\`, \`X-Service-Event-Id\` (the event \`id\`, the same on every retry: dedupe on it),
\`X-Service-Event\` (event type), \`X-Service-Attempt\`, \`Content-Type: application/json\` and \`User-Agent: docsift-webhooks/1\`.
The digest is lowercase hex HMAC-SHA256 keyed with the webhook secret over \`{X-Service-Timestamp}.{raw body bytes}\`; timestamp and signature are computed afresh on every attempt.
Receivers must recompute it over the raw bytes (before any JSON parsing), compare in constant time, and reject timestamps more than 5 minutes old.`;

const RETRIES = `**Delivery.** One graphile-worker job per event, at least once. Success is any 2xx answered within 10 s (WEBHOOK_TIMEOUT_MS).
5xx, 408, 429, timeouts and connection errors are retried at most 5 times (6 attempts): after 30 s, 1 min, 2 min, 4 min and 8 min, each ±20 % jitter
(base WEBHOOK_RETRY_BASE_MS, doubling). A 429's \`Retry-After\` (seconds or HTTP date, capped at 1 hour) is honoured when longer than the backoff.
Any other answer (3xx, other 4xx) is final; redirects are not followed. A target that resolves to a private, loopback or link-local address at connect time
(DNS rebinding) is refused and final. Events are queued only while the webhook is active; queued retries stop when it is deactivated or deleted.
Retries use the webhook's current URL and secret. Every attempt is listed under GET /api/v1/webhooks/deliveries/.`;

const SCOPED = 'Full-access keys only: scoped keys get 403 SCOPED_KEY_FORBIDDEN.';

const WebhookConfig = z
  .object({
    configured: z.boolean(),
    url: z.string().nullable().openapi({ description: 'Delivery URL; null when no webhook is configured.' }),
    is_active: z.boolean().openapi({ description: 'Events are queued only while true; false when not configured.' }),
  })
  .openapi('WebhookConfig');

const WebhookWithSecret = WebhookConfig.extend({
  secret: z.string().openapi({
    description:
      'Signing secret: `whsec_` + 43 characters. Shown only in this response: store it now. The service keeps it only encrypted (AES-256-GCM under a key derived from SIGNING_SECRET).',
    example: 'whsec_Qm9vc3RlZCBieSByYW5kb21CeXRlcygzMikgYmFzZTY0',
  }),
}).openapi('WebhookConfigWithSecret');

const WebhookDeleted = z
  .object({
    configured: z.literal(false),
    deleted: z.boolean().openapi({ description: 'false when there was no webhook (DELETE is idempotent).' }),
  })
  .openapi('WebhookDeleted');

const WebhookEvent = webhookEventSchema(`Body of every webhook delivery.\n\n${SIGNING}`);

const TestResult = z
  .object({
    delivered: z.literal(true),
    event_id: z.string().openapi({ format: 'uuid' }),
    delivery_id: z.string().openapi({ format: 'uuid' }),
    status_code: z.number().int().openapi({ description: "The receiver's 2xx status." }),
    duration_ms: z.number().int(),
  })
  .openapi('WebhookTestResult');

const Delivery = z
  .object({
    id: z.string().openapi({ format: 'uuid' }),
    event_id: z.string().openapi({ format: 'uuid' }),
    event_type: z.string().openapi({ example: 'document.indexed' }),
    attempt: z
      .number()
      .int()
      .openapi({ description: 'Ordinal of this attempt for the event (automatic attempts 1–6; manual redeliveries continue the count).' }),
    trigger: z
      .enum(['automatic', 'manual', 'test'])
      .openapi({ description: '`automatic` (queued by an event or a retry), `manual` (redeliver), `test` (test endpoint).' }),
    url: z.string(),
    status_code: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'null when no HTTP answer arrived (timeout, connection error, refused URL).' }),
    success: z.boolean(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    next_retry_at: Timestamp.nullable().openapi({ description: 'When the next automatic attempt is due; null when none follows.' }),
    created_at: Timestamp,
  })
  .openapi('WebhookDelivery');

const PutWebhook = z
  .strictObject({
    url: withoutNul(
      z
        .string({ error: 'A URL is required.' })
        .min(1, 'A URL is required.')
        .max(WEBHOOK_URL_MAX, `URL must be at most ${WEBHOOK_URL_MAX} characters.`),
    ).openapi({
      description:
        'http(s) URL without credentials, at most 2,048 characters; private, loopback and link-local targets are refused unless ALLOW_PRIVATE_URLS.',
      example: 'https://example.com/hooks/docsift',
    }),
  })
  .openapi('PutWebhook');
const PatchWebhook = z.strictObject({ is_active: z.boolean() }).openapi('PatchWebhook');

const DeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: 'Page size, 1–200 (default 50).' }),
  cursor: z
    .string()
    .optional()
    .openapi({ description: 'Opaque cursor from the previous page’s `Link: <…>; rel="next"` header (also in `X-Next-Cursor`).' }),
  event_id: z.string().optional().openapi({ description: 'Only the attempts of this event.' }),
});
const DeliveryParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, format: 'uuid' }) });

const routes = {
  get: createRoute({
    method: 'get',
    path: '/api/v1/webhooks',
    operationId: 'getWebhook',
    tags,
    summary: "The organization's webhook",
    description: `Never returns the secret. \`{configured:false, url:null, is_active:false}\` when none is configured. ${SCOPED}`,
    responses: { 200: jsonResponse(WebhookConfig, 'Webhook configuration'), ...errorResponses(['SCOPED_KEY_FORBIDDEN']) },
  }),
  put: createRoute({
    method: 'post',
    path: '/api/v1/webhooks',
    operationId: 'setWebhook',
    tags,
    summary: 'Create the webhook or change its URL',
    description: `One webhook per organization. Creating answers 201 with the signing \`secret\`, shown only this once (new webhooks are active);
on an existing webhook the URL is replaced (200, no secret; secret and is_active unchanged). The URL is validated statically and, unless
ALLOW_PRIVATE_URLS, its DNS answer must not be private (a name that does not resolve yet is accepted); delivery re-checks at connect time.\n\n${RETRIES}\n\n${SIGNING}\n\n${SCOPED}`,
    request: { body: jsonBody(PutWebhook) },
    responses: {
      200: jsonResponse(WebhookConfig, 'URL updated'),
      201: jsonResponse(WebhookWithSecret, 'Created; the secret is shown only here'),
      ...errorResponses(['VALIDATION_FAILED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
  patch: createRoute({
    method: 'patch',
    path: '/api/v1/webhooks',
    operationId: 'updateWebhook',
    tags,
    summary: 'Activate or deactivate the webhook',
    description: `While inactive, new events are not queued and pending retries are dropped when due; the test and redeliver endpoints still send. ${SCOPED}`,
    request: { body: jsonBody(PatchWebhook) },
    responses: {
      200: jsonResponse(WebhookConfig, 'Updated'),
      ...errorResponses(['VALIDATION_FAILED', 'WEBHOOK_NOT_CONFIGURED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
  delete: createRoute({
    method: 'delete',
    path: '/api/v1/webhooks',
    operationId: 'deleteWebhook',
    tags,
    summary: 'Delete the webhook',
    description: `Answers 200 \`{configured:false, deleted:true}\` (\`deleted:false\` when there was none). Once it has answered nothing more is sent: queued deliveries and
retries find no webhook and stop (an attempt already in flight is waited for). The delivery log is kept. ${SCOPED}`,
    responses: { 200: jsonResponse(WebhookDeleted, 'Deleted'), ...errorResponses(['SCOPED_KEY_FORBIDDEN']) },
  }),
  rotate: createRoute({
    method: 'post',
    path: '/api/v1/webhooks/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tags,
    summary: 'Rotate the signing secret',
    description: `Replaces the secret at once and returns the new one, shown only here. Every attempt from now on, including retries of earlier events, is signed with it. ${SCOPED}`,
    responses: {
      200: jsonResponse(WebhookWithSecret, 'New secret'),
      ...errorResponses(['WEBHOOK_NOT_CONFIGURED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
  test: createRoute({
    method: 'post',
    path: '/api/v1/webhooks/test',
    operationId: 'testWebhook',
    tags,
    summary: 'Send a test event now',
    description: `Delivers a signed \`webhook.test\` event (data: \`{message, webhook_url}\`) synchronously, once, without retries, even while inactive, and reports
the receiver's answer. Non-2xx, timeout, connection failure or a refused target give 500 WEBHOOK_TEST_FAILED with the reason in \`error\`. The attempt is logged. ${SCOPED}`,
    responses: {
      200: jsonResponse(TestResult, 'Delivered'),
      ...errorResponses(['WEBHOOK_NOT_CONFIGURED', 'WEBHOOK_TEST_FAILED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
  deliveries: createRoute({
    method: 'get',
    path: '/api/v1/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    tags,
    summary: 'Delivery attempts, newest first',
    description: `Every attempt (automatic, manual, test) of the organization's events. A plain array; when more exist the response has \`Link: <url>; rel="next"\` and \`X-Next-Cursor\`. ${SCOPED}`,
    request: { query: DeliveriesQuery },
    responses: {
      200: {
        ...jsonResponse(z.array(Delivery), 'A page of attempts'),
        headers: {
          Link: { schema: { type: 'string' }, description: 'Next page, RFC 8288' },
          'X-Next-Cursor': { schema: { type: 'string' } },
        },
      },
      ...errorResponses(['VALIDATION_FAILED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
  redeliver: createRoute({
    method: 'post',
    path: '/api/v1/webhooks/deliveries/{id}/redeliver',
    operationId: 'redeliverWebhook',
    tags,
    summary: "Send a delivery's event again",
    description: `Sends the same event (same \`id\`, body and event timestamp; fresh signature) to the current webhook now, synchronously, as a new \`manual\` attempt
without automatic retries, and returns that attempt (200 whether or not the receiver accepted it: see \`success\`). ${SCOPED}`,
    request: { params: DeliveryParam },
    responses: {
      200: jsonResponse(Delivery, 'The new attempt'),
      ...errorResponses(['DELIVERY_NOT_FOUND', 'WEBHOOK_NOT_CONFIGURED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
};

export function registerWebhookRoutes(app: App, deps: AppDeps): void {
  app.openAPIRegistry.register('WebhookEvent', WebhookEvent);
  app.openapi(routes.get, async (c) => c.json(await getWebhookConfig(deps, c.get('caller')), 200));
  app.openapi(routes.put, async (c) => {
    const r = await putWebhook(deps, c.get('caller'), c.req.valid('json').url);
    return r.created ? c.json(r.body as z.infer<typeof WebhookWithSecret>, 201) : c.json(r.body, 200);
  });
  app.openapi(routes.patch, async (c) => c.json(await setWebhookActive(deps, c.get('caller'), c.req.valid('json').is_active), 200));
  app.openapi(routes.delete, async (c) => c.json(await deleteWebhook(deps, c.get('caller')), 200));
  app.openapi(routes.rotate, async (c) => c.json(await rotateWebhookSecret(deps, c.get('caller')), 200));
  app.openapi(routes.test, async (c) => c.json(await sendTestEvent(deps, c.get('caller')), 200));
  app.openapi(routes.deliveries, async (c) => {
    const q = c.req.valid('query');
    const { page, next } = await listDeliveries(deps, c.get('caller'), q);
    setNextPage(c, next, q.limit);
    return c.json(page, 200);
  });
  app.openapi(routes.redeliver, async (c) => c.json(await redeliver(deps, c.get('caller'), c.req.valid('param').id), 200));
}
