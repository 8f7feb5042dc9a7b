// Friendly names for the generated OpenAPI schemas. Everything here derives from
// generated/schema.d.ts: no shape is restated by hand, so a regenerated schema changes these
// types with it. Object shapes are interfaces (extending the generated type) rather than aliases,
// so editors and compiler errors name them (`SearchRequest`) instead of spelling out an anonymous
// `{ query: string; … }`.
import type { components, paths as Paths } from './generated/schema.js';
import type { Filter } from './filter.js';

type Schemas = components['schemas'];
type S<N extends string> = N extends keyof Schemas ? Schemas[N] : never;

/**
 * Type-level only, never present at run time. An interface that only extends another type is
 * displayed as that type (an anonymous `{ … }` here); one own member keeps its name in editors and
 * compiler errors. Optional, symbol-keyed and `never`, no object needs, notices or can set it.
 */
export declare const schemaName: unique symbol;

export interface ErrorEnvelopeBody extends S<'ErrorEnvelope'> {
  readonly [schemaName]?: never;
}
export type ErrorCode = S<'ErrorEnvelope'>['code'];

export interface Collection extends S<'Collection'> {
  readonly [schemaName]?: never;
}
export interface CreateCollection extends S<'CreateCollection'> {
  readonly [schemaName]?: never;
}
export interface UpdateCollection extends S<'UpdateCollection'> {
  readonly [schemaName]?: never;
}
export interface SubscriptionResult extends S<'SubscriptionResult'> {
  readonly [schemaName]?: never;
}
export interface LanguageList extends S<'LanguageList'> {
  readonly [schemaName]?: never;
}
export interface CollectionImport extends S<'CollectionImport'> {
  readonly [schemaName]?: never;
}

export interface DocumentListItem extends S<'DocumentListItem'> {
  readonly [schemaName]?: never;
}
export interface DocumentDetail extends S<'DocumentDetail'> {
  readonly [schemaName]?: never;
}
export type DocumentStatus = DocumentListItem['status'];
export interface Chunk extends S<'Chunk'> {
  readonly [schemaName]?: never;
}
export interface UploadedDocument extends S<'UploadedDocument'> {
  readonly [schemaName]?: never;
}
export interface BatchUpload extends S<'BatchUpload'> {
  readonly [schemaName]?: never;
}
type Skipped = BatchUpload['skipped'][number];
export interface SkippedFile extends Skipped {
  readonly [schemaName]?: never;
}
export interface TaggedDocuments extends S<'TaggedDocuments'> {
  readonly [schemaName]?: never;
}
/** `filter` is sent as JSON text; the SDK encodes it. */
export interface ListDocumentsQuery extends Omit<NonNullable<Paths['/api/v1/documents/']['get']['parameters']['query']>, 'filter'> {
  filter?: Filter;
  readonly [schemaName]?: never;
}
export interface DocumentFacets extends S<'DocumentFacets'> {
  readonly [schemaName]?: never;
}
export type Facets = S<'Facets'>;
export type Highlights = S<'Highlights'>;
export interface UpdateDocument extends S<'UpdateDocument'> {
  readonly [schemaName]?: never;
}

export interface SearchRequest extends Omit<S<'SearchRequest'>, 'filter'> {
  filter?: Filter;
  readonly [schemaName]?: never;
}
export interface SearchResponse extends S<'SearchResponse'> {
  readonly [schemaName]?: never;
}
export interface SearchResult extends S<'SearchResult'> {
  readonly [schemaName]?: never;
}
export type SearchMode = NonNullable<SearchRequest['mode']>;

export interface ApiKey extends S<'ApiKey'> {
  readonly [schemaName]?: never;
}
export interface ApiKeyWithSecret extends S<'ApiKeyWithSecret'> {
  readonly [schemaName]?: never;
}
export interface CurrentKey extends S<'CurrentKey'> {
  readonly [schemaName]?: never;
}
export interface CreateKey extends S<'CreateKey'> {
  readonly [schemaName]?: never;
}
export interface UpdateKey extends S<'UpdateKey'> {
  readonly [schemaName]?: never;
}
export interface CollectionGrant extends S<'CollectionGrant'> {
  readonly [schemaName]?: never;
}
export interface PutGrant extends S<'PutGrant'> {
  readonly [schemaName]?: never;
}
export type KeyExpiry = NonNullable<CreateKey['expires_in']>;

export interface WebhookConfig extends S<'WebhookConfig'> {
  readonly [schemaName]?: never;
}
export interface WebhookConfigWithSecret extends S<'WebhookConfigWithSecret'> {
  readonly [schemaName]?: never;
}
export interface WebhookDeleted extends S<'WebhookDeleted'> {
  readonly [schemaName]?: never;
}
export interface WebhookTestResult extends S<'WebhookTestResult'> {
  readonly [schemaName]?: never;
}
export interface WebhookDelivery extends S<'WebhookDelivery'> {
  readonly [schemaName]?: never;
}
/**
 * A webhook delivery's body. For `document.*` events `data` is a WebhookDocumentData, whose `tags`
 * is a comma-separated string, not an array (see there).
 */
export interface WebhookEvent extends S<'WebhookEvent'> {
  readonly [schemaName]?: never;
}
type DocumentEventData = Extract<S<'WebhookEvent'>['data'], { uuid: string }>;
/** `data` of a `document.indexed` or `document.failed` event. */
export interface WebhookDocumentData extends DocumentEventData {
  /**
   * ONE comma-separated string (`"finance,2024"`, `""` for none), as the specification requires
   * for webhook payloads, unlike the REST API's documents, whose `tags` is an array of strings.
   * `splitWebhookTags(data.tags)` gives the array.
   */
  tags: string;
}
export interface ListDeliveriesQuery extends NonNullable<Paths['/api/v1/webhooks/deliveries/']['get']['parameters']['query']> {
  readonly [schemaName]?: never;
}

export interface UsageStats extends S<'UsageStats'> {
  readonly [schemaName]?: never;
}
/** @deprecated alias of UsageStats */
export type UsageReport = UsageStats;
export interface KeyUsage extends S<'KeyUsage'> {
  readonly [schemaName]?: never;
}
export interface RequestLogEntry extends S<'RequestLogEntry'> {
  readonly [schemaName]?: never;
}
export interface UsageQuery extends NonNullable<Paths['/api/v1/keys/usage/']['get']['parameters']['query']> {
  readonly [schemaName]?: never;
}
export interface PlanStatus extends S<'PlanStatus'> {
  readonly [schemaName]?: never;
}
export interface Invoice extends S<'Invoice'> {
  readonly [schemaName]?: never;
}
export interface InvoicesQuery extends NonNullable<Paths['/api/v1/billing/invoices/']['get']['parameters']['query']> {
  readonly [schemaName]?: never;
}
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
