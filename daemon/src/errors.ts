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
  const fields: FieldErrors = {};
  for (const issue of issues) {
    // Unknown keys are reported under each offending key so clients can point at them.
    const keys = issue.code === 'unrecognized_keys' && issue.keys?.length ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const p of keys) {
      const name = p.length ? p.map(String).join('.') : '_body';
      const msg = issue.code === 'unrecognized_keys' ? 'Unknown field.' : issue.message;
      (fields[name] ??= []).push(msg);
    }
  }
  return fields;
}
