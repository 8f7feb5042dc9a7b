// Friendly names for the generated OpenAPI schemas. Everything here derives from
// generated/schema.d.ts (plus pending-paths.ts for endpoints not generated yet): no shape is
// restated by hand, so a regenerated schema changes these types with it.
import type { Paths, Schemas } from './pending-paths.js';
import type { Filter } from './filter.js';

type S<N extends string> = N extends keyof Schemas ? Schemas[N] : never;

export type ErrorEnvelopeBody = S<'ErrorEnvelope'>;
export type ErrorCode = S<'ErrorEnvelope'>['code'];

export type Collection = S<'Collection'>;
export type CreateCollection = S<'CreateCollection'>;
export type UpdateCollection = S<'UpdateCollection'>;
export type SubscriptionResult = S<'SubscriptionResult'>;

export type DocumentListItem = S<'DocumentListItem'>;
export type DocumentDetail = S<'DocumentDetail'>;
export type DocumentStatus = DocumentListItem['status'];
export type Chunk = S<'Chunk'>;
export type UploadedDocument = S<'UploadedDocument'>;
export type BatchUpload = S<'BatchUpload'>;
export type SkippedFile = BatchUpload['skipped'][number];
export type TaggedDocuments = S<'TaggedDocuments'>;
/** `filter` is sent as JSON text; the SDK encodes it. */
export type ListDocumentsQuery = Omit<NonNullable<Paths['/api/v1/documents/']['get']['parameters']['query']>, 'filter'> & {
  filter?: Filter;
};
export type UpdateDocument = S<'UpdateDocument'>;

export type SearchRequest = Omit<S<'SearchRequest'>, 'filter'> & { filter?: Filter };
export type SearchResponse = S<'SearchResponse'>;
export type SearchResult = S<'SearchResult'>;
export type SearchMode = NonNullable<SearchRequest['mode']>;

export type ApiKey = S<'ApiKey'>;
export type ApiKeyWithSecret = S<'ApiKeyWithSecret'>;
export type CurrentKey = S<'CurrentKey'>;
export type CreateKey = S<'CreateKey'>;
export type UpdateKey = S<'UpdateKey'>;
export type CollectionGrant = S<'CollectionGrant'>;
export type PutGrant = S<'PutGrant'>;
export type KeyExpiry = NonNullable<CreateKey['expires_in']>;

export type WebhookConfig = S<'WebhookConfig'>;
export type WebhookConfigWithSecret = S<'WebhookConfigWithSecret'>;
export type WebhookDeleted = S<'WebhookDeleted'>;
export type WebhookTestResult = S<'WebhookTestResult'>;
export type WebhookDelivery = S<'WebhookDelivery'>;
export type WebhookEvent = S<'WebhookEvent'>;
export type ListDeliveriesQuery = NonNullable<Paths['/api/v1/webhooks/deliveries/']['get']['parameters']['query']>;

export type UsageStats = S<'UsageStats'>;
/** @deprecated alias of UsageStats */
export type UsageReport = UsageStats;
export type KeyUsage = S<'KeyUsage'>;
export type RequestLogEntry = S<'RequestLogEntry'>;
export type UsageQuery = NonNullable<Paths['/api/v1/keys/usage/']['get']['parameters']['query']>;
export type PlanStatus = S<'PlanStatus'>;
export type Invoice = S<'Invoice'>;
export type InvoicesQuery = NonNullable<Paths['/api/v1/billing/invoices/']['get']['parameters']['query']>;
export type {
  Filter,
  FilterCondition,
  FilterValue,
  FilterField,
  AndFilter,
  OrFilter,
  NotFilter,
  FieldFilter,
  DocumentMetadata,
} from './filter.js';
