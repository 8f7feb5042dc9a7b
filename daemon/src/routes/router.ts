import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, ERROR_CODES, ERROR_STATUS, errorBody, fieldsFromIssues, validationError, type ErrorCode } from '../errors.js';
import { StorageUnavailableError } from '../storage/types.js';
import type { AppEnv } from '../types.js';
import { unsupportedMediaType } from './media-type.js';

// What every route file needs and nothing more: the router type, the error mapping and the OpenAPI
// helpers. app.ts wires the routes; no route imports app.ts.

export type App = OpenAPIHono<AppEnv>;

export function newRouter(): App {
  return new OpenAPIHono<AppEnv>({
    strict: false,
    defaultHook: (result) => {
      if (!result.success) throw validationError(fieldsFromIssues(result.error.issues as never));
    },
  });
}

export function respondError(c: Context<AppEnv>, err: AppError): Response {
  for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
  return c.json(errorBody(err), err.status as 400);
}

/** Maps anything thrown by a handler to the error envelope; only genuine faults become 500s. */
export function toAppError(err: unknown): AppError {
  // Nothing was stored and the file store may be back shortly: say when to try again (clients
  // retry a 500 only with Retry-After), as for the download's 503 below.
  if (err instanceof AppError && err.code === 'UPLOAD_FAILED' && !err.headers?.['Retry-After']) {
    return new AppError(err.code, err.message, err.fields, { ...err.headers, 'Retry-After': '5' });
  }
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 400)
      return new AppError('VALIDATION_FAILED', 'Malformed request body: expected valid JSON.', { _body: [err.message] });
    if (err.status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body too large.');
    if (err.status === 401) return new AppError('AUTHENTICATION_REQUIRED', 'Authentication required.');
    if (err.status === 404) return new AppError('NOT_FOUND', 'Not found.');
    if (err.status === 415) return unsupportedMediaType();
    // Any other client-side HTTP error from the framework is still the client's mistake, never a 500.
    if (err.status >= 400 && err.status < 500) return new AppError('VALIDATION_FAILED', err.message || 'Bad request.');
  }
  // Text PostgreSQL cannot store (NUL bytes, invalid encodings) is bad input, never a server fault.
  const pgCode = (err as { code?: string } | null)?.code;
  if ((err as Error | null)?.name === 'PostgresError' && (pgCode === '22021' || pgCode === '22P05' || pgCode === '22P02')) {
    return new AppError('VALIDATION_FAILED', 'The request contains characters or values that cannot be stored (for example NUL bytes).');
  }
  // The file store (S3) is down or refusing: the request did nothing and can be repeated.
  if (err instanceof StorageUnavailableError) {
    return new AppError('SERVICE_UNAVAILABLE', 'The file store is unreachable; retry shortly.', undefined, { 'Retry-After': '5' });
  }
  if (err && typeof err === 'object' && 'name' in err && (err as Error).name === 'ZodError') {
    return new AppError(
      'VALIDATION_FAILED',
      'One or more fields failed validation.',
      fieldsFromIssues((err as unknown as { issues: never[] }).issues),
    );
  }
  return new AppError('INTERNAL_ERROR', 'Internal server error. Quote the X-Request-Id header when reporting this.');
}

export const ErrorEnvelope = z
  .object({
    error: z.string().openapi({ description: 'Human-readable message for display.' }),
    code: z.enum(ERROR_CODES).openapi({ description: 'Machine-readable code for program logic.' }),
    fields: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .openapi({ description: 'Only on validation failures: field name → messages.' }),
  })
  .openapi('ErrorEnvelope');

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  429: 'Rate limited',
  500: 'Server error',
  503: 'Service unavailable (the database is unreachable)',
};

const RETRY_AFTER_HEADER = {
  'Retry-After': {
    description:
      'Seconds to wait before repeating the request. Present when the request certainly had no effect; absent when a write lost its database connection midway and may have been applied.',
    schema: { type: 'integer' as const, minimum: 1 },
  },
};

const RATE_LIMITED_HEADERS = {
  'Retry-After': { description: 'Seconds until the request will pass.', schema: { type: 'integer' as const, minimum: 1 } },
  'X-RateLimit-Tier': {
    description: 'On a rate-limit 429 (not a plan-quota one): the rate tier whose limit was reached (`free`, `basic`, `pro`).',
    schema: { type: 'string' as const },
  },
  'X-RateLimit-Admin': {
    description:
      'On a rate-limit 429, `true` when the caller is an administrator of this server, who can raise the tier with `docsift-daemon admin set-tier`.',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};

/**
 * OpenAPI error responses for a route. Codes are grouped by status; 401 and 429 apply to every
 * authenticated route and are added automatically unless `publicRoute` is set; 500 and 503 (a
 * database outage) apply to every route.
 */
export function errorResponses(codes: ErrorCode[], opts: { publicRoute?: boolean } = {}) {
  const all = new Set<ErrorCode>(codes);
  if (!opts.publicRoute) {
    for (const c of [
      'AUTHENTICATION_REQUIRED',
      'INVALID_API_KEY',
      'API_KEY_EXPIRED',
      'USER_ACCOUNT_DISABLED',
      'RATE_LIMIT_EXCEEDED',
    ] as const)
      all.add(c);
  }
  all.add('INTERNAL_ERROR');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  // A database outage is 503 SERVICE_UNAVAILABLE (a search's is its 500 SEARCH_UNAVAILABLE).
  byStatus.set(503, ['SERVICE_UNAVAILABLE']);
  const out: Record<
    number,
    {
      description: string;
      content: { 'application/json': { schema: typeof ErrorEnvelope } };
      headers?: typeof RETRY_AFTER_HEADER | typeof RATE_LIMITED_HEADERS;
    }
  > = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[status] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.join(', ')}`,
      content: { 'application/json': { schema: ErrorEnvelope } },
      // 503s, and an UPLOAD_FAILED 500 (nothing was stored), say when to try again.
      ...(status === 503 || (status === 500 && list.includes('UPLOAD_FAILED'))
        ? { headers: RETRY_AFTER_HEADER }
        : status === 429
          ? { headers: RATE_LIMITED_HEADERS }
          : {}),
    };
  }
  return out;
}

export function jsonBody<T extends z.ZodType>(schema: T, description = 'JSON body') {
  return { required: true, description, content: { 'application/json': { schema } } };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

// Path ids are plain strings: a malformed id simply matches nothing and answers 404, like any unknown id.
export const UuidParam = z.object({
  uuid: z.string().openapi({ param: { name: 'uuid', in: 'path' }, format: 'uuid', example: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f' }),
});

/** PostgreSQL text cannot hold NUL bytes; refusing them during validation makes such input a 400, not a 500. */
export function withoutNul<T extends z.ZodString>(schema: T): T {
  return schema.refine((s) => !s.includes('\u0000'), 'Must not contain NUL characters.');
}

export const Timestamp = z.string().openapi({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' });

export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/** Next-page headers of keyset-paginated lists: RFC 8288 `Link: <…>; rel="next"` plus `X-Next-Cursor`. */
export function setNextPage(
  c: { req: { url: string }; header: (name: string, value: string) => void },
  next: string | null,
  limit: number,
): void {
  if (!next) return;
  const url = new URL(c.req.url);
  url.searchParams.set('cursor', next);
  url.searchParams.set('limit', String(limit));
  c.header('Link', `<${url.pathname}${url.search}>; rel="next"`);
  c.header('X-Next-Cursor', next);
}

/**
 * A JSON array written batch by batch as the database yields rows. The status is already sent when a
 * later batch fails, so the stream is cut (the client sees truncated JSON, never a wrong complete list).
 */
export function jsonArrayStream<R>(
  first: IteratorResult<R[]>,
  rest: AsyncIterator<R[]>,
  toJson: (row: R) => unknown,
  logger: { error: (o: object, msg: string) => void },
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let started = false;
  let pending: IteratorResult<R[]> | undefined = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const batch = pending ?? (await rest.next());
        pending = undefined;
        if (batch.done) {
          controller.enqueue(enc.encode(started ? ']' : '[]'));
          controller.close();
          return;
        }
        const body = batch.value.map((r) => JSON.stringify(toJson(r))).join(',');
        if (body) {
          controller.enqueue(enc.encode((started ? ',' : '[') + body));
          started = true;
        }
      } catch (err) {
        logger.error({ err }, 'streamed list failed');
        controller.error(err);
      }
    },
    async cancel() {
      await rest.return?.(undefined);
    },
  });
}
