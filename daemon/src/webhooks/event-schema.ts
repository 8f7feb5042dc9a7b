// The body of every webhook delivery, declared once: the OpenAPI component `WebhookEvent` (registered
// by routes/webhooks.ts) and the types the events are built with (events.ts, log.ts, delivery.ts).
import { z } from '@hono/zod-openapi';

export const EVENT_TYPES = ['document.indexed', 'document.failed', 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DocumentEventData = z.object({
  uuid: z.string().openapi({ format: 'uuid' }),
  status: z.string().openapi({ example: 'indexed' }),
  title: z.string(),
  source_type: z.string(),
  collection_uuid: z.string().openapi({ format: 'uuid' }),
  collection_name: z.string(),
  chunks_count: z.number().int(),
  tags: z.string().openapi({ description: 'Comma-separated (a string here, not an array).', example: 'finance,2024' }),
  error_message: z.string().nullable().openapi({ description: 'null on success; the failure description for document.failed.' }),
  original_filename: z.string(),
  file_size: z.number().int(),
});
export type DocumentEventData = z.infer<typeof DocumentEventData>;

export const TestEventData = z.object({ message: z.string(), webhook_url: z.string() });
export type TestEventData = z.infer<typeof TestEventData>;

/** What the events table stores; the delivered body puts the event's `id` first (delivery.ts). */
export const StoredEventPayload = z.object({
  event: z.enum(EVENT_TYPES),
  timestamp: z.string().openapi({ format: 'date-time', example: '2026-01-01T12:00:00.000Z', description: 'When the event happened.' }),
  data: z
    .union([DocumentEventData, TestEventData])
    .openapi({ description: 'Document fields for document.* events; `{message, webhook_url}` for webhook.test.' }),
});
export type StoredEventPayload = z.infer<typeof StoredEventPayload>;

/** The OpenAPI component; `description` (the signing rules) is the route file's. */
export function webhookEventSchema(description: string) {
  return z
    .object({
      id: z.string().openapi({ format: 'uuid', description: 'Event id, identical on every retry and in X-Service-Event-Id.' }),
      ...StoredEventPayload.shape,
    })
    .openapi('WebhookEvent', { description });
}
