import type { Tx } from '../db/client.js';
import { webhooksOfOrgs } from './config.js';
import { deliverWebhookJob } from './deliver-webhook.js';
import type { DocumentEventData, EventType, StoredEventPayload } from './event-schema.js';

export type { DocumentEventData, EventType } from './event-schema.js';

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
  return (await emitEvents(tx, [{ organizationId, type, data }], now))[0];
}

export interface PendingEvent {
  organizationId: string;
  type: EventType;
  data: DocumentEventData;
}

/**
 * emitEvent for many events (a processed batch's documents): the organizations' webhooks are read
 * in one statement, not one per event (a batch of 32 documents made 32 identical lookups, about
 * 1,500 statements a bulk upload of 1,500 files). Events are stored and queued in the given order.
 * Returns each event's id, undefined where its organization has no active webhook.
 */
export async function emitEvents(tx: Tx, events: PendingEvent[], now: Date): Promise<(string | undefined)[]> {
  if (!events.length) return [];
  const orgs = [...new Set(events.map((e) => e.organizationId))];
  const hooks = new Map((await webhooksOfOrgs(tx, orgs)).filter((h) => h.is_active).map((h) => [h.organization_id, h]));
  // Issued together (postgres.js pipelines them on the transaction's connection), in event order.
  return Promise.all(
    events.map(async ({ organizationId, type, data }) => {
      const hook = hooks.get(organizationId);
      if (!hook) return undefined;
      const payload: StoredEventPayload = { event: type, timestamp: now.toISOString(), data };
      const rows = await tx<{ id: string }[]>`
        insert into events (organization_id, type, payload, created_at) values (${organizationId}, ${type}, ${tx.json(payload as never)}, ${now}) returning id`;
      const id = rows[0]!.id;
      await deliverWebhookJob.enqueue(tx, { webhookId: hook.id, eventId: id, attempt: 1 });
      return id;
    }),
  );
}
