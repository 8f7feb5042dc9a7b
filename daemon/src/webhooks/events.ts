import type { Tx } from '../db/client.js';
import { webhookOfOrg } from './config.js';
import { deliverWebhookJob } from './deliver-webhook.js';

export type EventType = 'document.indexed' | 'document.failed' | 'webhook.test';

export interface DocumentEventData {
  uuid: string;
  status: string;
  title: string;
  source_type: string;
  collection_uuid: string;
  collection_name: string;
  chunks_count: number;
  /** Comma-separated, as the webhook payload specifies. */
  tags: string;
  error_message: string | null;
  original_filename: string;
  file_size: number;
}

/**
 * Records an event in the same transaction as the state change it describes, and queues its webhook
 * delivery. Events exist to be delivered, and only deliveries read them (the delivery log,
 * redelivery): while the organization has no active webhook, events are not sent (as the API
 * documents for an inactive one) and none is stored. A bulk upload without a webhook wrote one
 * never-read row per document (SciFact: 560 B per chunk).
 */
export async function emitEvent(
  tx: Tx,
  organizationId: string,
  type: EventType,
  data: DocumentEventData,
  now: Date,
): Promise<string | undefined> {
  const hook = await webhookOfOrg(tx, organizationId);
  if (!hook?.is_active) return undefined;
  const payload = { event: type, timestamp: now.toISOString(), data };
  const rows = await tx<{ id: string }[]>`
    insert into events (organization_id, type, payload, created_at) values (${organizationId}, ${type}, ${tx.json(payload as never)}, ${now}) returning id`;
  const id = rows[0]!.id;
  await deliverWebhookJob.enqueue(tx, { webhookId: hook.id, eventId: id, attempt: 1 });
  return id;
}
