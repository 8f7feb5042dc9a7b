import { z } from '@hono/zod-openapi';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../errors.js';

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
  all.add('SERVICE_UNAVAILABLE');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<
    number,
    {
      description: string;
      content: { 'application/json': { schema: typeof ErrorEnvelope } };
      headers?: typeof RETRY_AFTER_HEADER;
    }
  > = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[status] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.join(', ')}`,
      content: { 'application/json': { schema: ErrorEnvelope } },
      ...(status === 503 ? { headers: RETRY_AFTER_HEADER } : {}),
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

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

// Slugs only ever hold [a-z0-9-] (see slugify), so anything else matches nothing: answer 404 without
// a query. This also keeps NUL bytes, which PostgreSQL text rejects, away from the database.
const SLUG_RE = /^[a-z0-9][a-z0-9-]{0,199}$/;
export function isSlug(s: string): boolean {
  return SLUG_RE.test(s);
}

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
