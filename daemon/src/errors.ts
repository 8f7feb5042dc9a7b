/** Every machine-readable error code the API can return, with its HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  NO_FILES_PROVIDED: 400,
  NO_FILE_PROVIDED: 400,
  UNSUPPORTED_FILE_TYPE: 400,
  FILE_TOO_LARGE: 400,
  INVALID_FILE_CONTENT: 400,
  URL_REQUIRED: 400,
  NAME_REQUIRED: 400,
  INVALID_API_KEY: 401,
  API_KEY_EXPIRED: 401,
  USER_ACCOUNT_DISABLED: 401,
  AUTHENTICATION_REQUIRED: 401,
  WRITE_ACCESS_REQUIRED: 403,
  NOT_COLLECTION_OWNER: 403,
  SCOPED_KEY_FORBIDDEN: 403,
  CSRF_FAILED: 403,
  DOWNLOAD_LINK_INVALID: 403,
  NOT_FOUND: 404,
  COLLECTION_NOT_FOUND: 404,
  DOCUMENT_NOT_FOUND: 404,
  DOCUMENT_FILE_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  GRANT_NOT_FOUND: 404,
  SUBSCRIPTION_NOT_FOUND: 404,
  WEBHOOK_NOT_CONFIGURED: 404,
  DELIVERY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SEARCH_UNAVAILABLE: 500,
  UPLOAD_FAILED: 500,
  WEBHOOK_TEST_FAILED: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A typical message for each code: the OpenAPI document's error examples. */
export const ERROR_EXAMPLES: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'One or more fields failed validation.',
  NO_FILES_PROVIDED: 'No files were provided: send them as multipart form fields named "files".',
  NO_FILE_PROVIDED: 'No file was provided: send it as a multipart form field named "file".',
  UNSUPPORTED_FILE_TYPE: 'Unsupported file type: .exe. Supported: PDF, Office, OpenDocument, RTF, EPUB, HTML, Markdown, text, CSV, JSON.',
  FILE_TOO_LARGE: 'The file is larger than 50 MiB.',
  INVALID_FILE_CONTENT: 'The file content does not match its type: report.pdf is not a PDF.',
  URL_REQUIRED: 'A URL document needs a "url".',
  NAME_REQUIRED: 'A key name is required.',
  INVALID_API_KEY: 'Invalid API key.',
  API_KEY_EXPIRED: 'This API key expired on 2026-10-01. Create a new key or renew this one.',
  USER_ACCOUNT_DISABLED: 'The account that owns this key is disabled.',
  AUTHENTICATION_REQUIRED: 'Authentication required: send "Authorization: Bearer svc_…".',
  WRITE_ACCESS_REQUIRED: 'This key can read but not write collection "research-papers".',
  NOT_COLLECTION_OWNER: 'Only the owner of a collection can change or delete it.',
  SCOPED_KEY_FORBIDDEN: 'Scoped API keys cannot manage API keys. Use a full-access key.',
  CSRF_FAILED: 'The form expired or came from another site; reload the page and try again.',
  DOWNLOAD_LINK_INVALID: 'This download link is invalid or has expired.',
  NOT_FOUND: 'No route for GET /api/v1/nope/.',
  COLLECTION_NOT_FOUND: 'Collection not found.',
  DOCUMENT_NOT_FOUND: 'Document not found.',
  DOCUMENT_FILE_NOT_FOUND: 'The original file is missing from storage.',
  API_KEY_NOT_FOUND: 'API key not found.',
  GRANT_NOT_FOUND: 'This key has no grant on collection "research-papers".',
  SUBSCRIPTION_NOT_FOUND: 'Subscription not found.',
  WEBHOOK_NOT_CONFIGURED: 'No webhook is configured for this organization.',
  DELIVERY_NOT_FOUND: 'Delivery not found.',
  METHOD_NOT_ALLOWED: 'PUT is not allowed on /api/v1/collections/; use GET, HEAD, POST.',
  PAYLOAD_TOO_LARGE: 'Request body too large.',
  RATE_LIMIT_EXCEEDED: 'Rate limit exceeded: 10 requests per minute on the Free tier. Retry after 42 s.',
  INTERNAL_ERROR: 'Internal server error. Quote the X-Request-Id header when reporting this.',
  SEARCH_UNAVAILABLE: 'Search is unavailable right now; try again shortly.',
  UPLOAD_FAILED: 'The file could not be stored; nothing was saved. Try again.',
  WEBHOOK_TEST_FAILED: 'The test event could not be delivered: connection refused.',
  SERVICE_UNAVAILABLE: 'The database is unreachable; try again in a few seconds.',
};
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: FieldErrors,
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  fields?: FieldErrors;
}

export function errorBody(err: AppError): ErrorBody {
  return err.fields ? { error: err.message, code: err.code, fields: err.fields } : { error: err.message, code: err.code };
}

export function validationError(fields: FieldErrors, message = 'One or more fields failed validation.'): AppError {
  return new AppError('VALIDATION_FAILED', message, fields);
}

/** Converts zod issues into the envelope's `fields` map (field path → messages). */
export function fieldsFromIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string; code?: string; keys?: string[] }[],
): FieldErrors {
  // A Map, not an object literal: a client's key may be "toString" or "__proto__", which an object
  // would find on its prototype. Object.fromEntries defines every name as an own property.
  const fields = new Map<string, string[]>();
  for (const issue of issues) {
    // Unknown keys are reported under each offending key so clients can point at them.
    const keys = issue.code === 'unrecognized_keys' && issue.keys?.length ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const p of keys) {
      const name = p.length ? p.map(String).join('.') : '_body';
      const msg = issue.code === 'unrecognized_keys' ? 'Unknown field.' : issue.message;
      const list = fields.get(name);
      if (list) list.push(msg);
      else fields.set(name, [msg]);
    }
  }
  return Object.fromEntries(fields);
}

/**
 * Wraps the callbacks that handle request data outside the request's own promise (parser and stream
 * events, timers, promise callbacks nobody awaits): a throw inside one becomes that request's failure
 * through `onThrow` (an AppError answers with its own status; anything else reaches onError as 500
 * INTERNAL_ERROR, logged with its stack) instead of an uncaughtException, which ends the process.
 */
export function callbackGuard(onThrow: (err: unknown) => void) {
  return <A extends unknown[]>(fn: (...args: A) => unknown) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        onThrow(err);
      }
    };
}

/**
 * A job failure retrying cannot fix (a bad file, a blocked URL, a 404, an extraction limit): the job
 * records it at once instead of using its retries. The one class jobs test for (isPermanent);
 * ExtractionError is one.
 */
export class PermanentError extends Error {
  readonly permanent = true;
}

export function isPermanent(err: unknown): err is PermanentError {
  return err instanceof PermanentError;
}

/**
 * A job attempt cut short because this process is stopping (its extraction thread was ended, or
 * the job was handed over as the worker stopped): it says nothing about the job, so the job is
 * neither failed nor charged an attempt (worker/recovery.ts gives it back) and runs on the next worker.
 */
export class StoppingError extends Error {}

export function isStopping(err: unknown): err is StoppingError {
  return err instanceof StoppingError;
}
