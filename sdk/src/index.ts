export { createClient, type DocsiftClient } from './client.js';
export type { ClientOptions, CallOptions, RawClient } from './transport.js';
export {
  DocsiftError,
  ApiError,
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  RateLimitError,
  ConnectionError,
  TimeoutError,
  DocumentProcessingError,
  WebhookVerificationError,
  parseRetryAfter,
} from './errors.js';
export { PagePromise, type Page } from './pagination.js';
export {
  verifyWebhook,
  signWebhook,
  splitWebhookTags,
  SeenEvents,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  EVENT_ID_HEADER,
  type VerifyWebhookOptions,
  type WebhookDedupeStore,
  type HeaderSource,
} from './webhook-verify.js';
export { MAX_FILE_BYTES, MAX_BATCH_FILES, type UploadSource, type FileLoader, type NamedBlob } from './upload.js';
export { UploadInterruptedError } from './upload-many.js';
export type { UploadManyOptions, UploadManyResult, UploadOutcome, UploadProgress } from './upload-many.js';
export type { WaitOptions, WaitProgress, SettledResult, DocumentState } from './wait.js';
export type { UploadOptions, TextDocument } from './resources/documents.js';
export type { ImportArchive } from './resources/collections.js';
export { DEFAULT_RETRY, type RetryConfig } from './retry.js';
export type * from './types.js';
export type { paths, components } from './generated/schema.js';
