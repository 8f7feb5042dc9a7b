/** Base class of every error the SDK throws, so callers can catch them all with one check. */
export class DocsiftError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ErrorEnvelope {
  error: string;
  code: string;
  fields?: Record<string, string[]>;
}

/** The API answered with an error envelope (`{error, code, fields?}`). */
export class ApiError extends DocsiftError {
  readonly status: number;
  /** Machine-readable code, e.g. `COLLECTION_NOT_FOUND`; `UNKNOWN` when the body was not an envelope. */
  readonly code: string;
  /** Only on validation failures: field name → messages. */
  readonly fields: Record<string, string[]> | undefined;
  /** The `X-Request-Id` of the failed request: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  readonly headers: Headers;
  /**
   * Seconds the server asks to wait before trying again (`Retry-After`, delta-seconds or an HTTP
   * date, read by `parseRetryAfter`); undefined when it sent none. Sent with 429, with 503s where
   * nothing was done, and with 500 UPLOAD_FAILED when storage is down.
   */
  readonly retryAfter: number | undefined;
  constructor(init: {
    status: number;
    code: string;
    message: string;
    fields?: Record<string, string[]> | undefined;
    requestId?: string | undefined;
    headers?: Headers;
    retryAfter?: number | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.fields = init.fields;
    this.requestId = init.requestId;
    this.headers = init.headers ?? new Headers();
    this.retryAfter = init.retryAfter ?? parseRetryAfter(this.headers.get('retry-after'));
  }
}

/** 400: the request failed validation; see `fields`. */
export class ValidationError extends ApiError {}
/** 401: missing, unknown, expired or disabled key (`code` tells which). */
export class AuthenticationError extends ApiError {}
/** 403: e.g. WRITE_ACCESS_REQUIRED, NOT_COLLECTION_OWNER, SCOPED_KEY_FORBIDDEN. */
export class PermissionError extends ApiError {}
/** 404: the resource does not exist or is not visible to this key. */
export class NotFoundError extends ApiError {}
/** 429: a rate window or the plan quota is exhausted. */
export class RateLimitError extends ApiError {}

/**
 * No HTTP answer: DNS failure, refused or reset connection, network down. The message names the
 * address and the system's code with its meaning, e.g. `Could not connect to http://localhost:8080:
 * ECONNREFUSED (connection refused: nothing listens there; is the server running?)`.
 */
export class ConnectionError extends DocsiftError {
  /** True when the request certainly never reached the server (connection refused, name not resolved). */
  readonly beforeSend: boolean;
  /** The system's or undici's code, e.g. `ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_SOCKET`; undefined when none was given (browsers). */
  readonly code: string | undefined;
  constructor(message: string, options: { cause?: unknown; beforeSend?: boolean; code?: string | undefined } = {}) {
    super(message, options);
    this.beforeSend = options.beforeSend ?? false;
    this.code = options.code;
  }
}

/** The request took longer than `timeoutMs`. */
export class TimeoutError extends ConnectionError {}

/** `waitForIndexed`: one or more documents ended in status `failed`. */
export class DocumentProcessingError extends DocsiftError {
  constructor(
    message: string,
    readonly failed: { uuid: string; title?: string; error_message: string }[],
  ) {
    super(message);
  }
}

/** `verifyWebhook` refused a delivery. */
export class WebhookVerificationError extends DocsiftError {
  constructor(
    message: string,
    readonly reason: 'missing_header' | 'malformed_header' | 'timestamp_out_of_range' | 'signature_mismatch' | 'invalid_payload',
  ) {
    super(message);
  }
}

/**
 * Retry-After as delta-seconds or an HTTP date, in seconds from `now`; undefined when absent or
 * unreadable. The one reader of the header in the SDK and the CLI (`ApiError.retryAfter` is it).
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return (
    !!body &&
    typeof body === 'object' &&
    typeof (body as ErrorEnvelope).error === 'string' &&
    typeof (body as ErrorEnvelope).code === 'string'
  );
}

/** Builds the typed error for a non-2xx answer from its status, headers and (parsed or raw) body. */
export function errorFromResponse(response: Response, body: unknown): ApiError {
  const status = response.status;
  const envelope = isEnvelope(body) ? body : undefined;
  const text = typeof body === 'string' && body.trim() ? body.trim().slice(0, 300) : '';
  const init = {
    status,
    code: envelope?.code ?? (status >= 500 ? 'INTERNAL_ERROR' : 'UNKNOWN'),
    message: envelope?.error ?? (text || `HTTP ${status} ${response.statusText}`.trim()),
    fields: envelope?.fields,
    requestId: response.headers.get('x-request-id') ?? undefined,
    headers: response.headers,
  };
  switch (status) {
    case 400:
      return new ValidationError(init);
    case 401:
      return new AuthenticationError(init);
    case 403:
      return new PermissionError(init);
    case 404:
      return new NotFoundError(init);
    case 429:
      return new RateLimitError(init);
    default:
      return new ApiError(init);
  }
}
