import type { MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import { bodyLimit } from 'hono/body-limit';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

// The two multipart routes stream their bodies into storage under their own limits (50 MiB per
// file, 100 files, 50 fields); every other body is capped here.
const MULTIPART_ROUTES = /^\/api\/v1\/(collections\/[^/]+\/documents|documents\/[^/]+\/replace)\/?$/;
// The upload route also takes text documents as JSON: its cap leaves room for the largest one.
const TEXT_ROUTE = /^\/api\/v1\/collections\/[^/]+\/documents\/?$/;
// JSON escaping can double a text (newlines, quotes, backslashes); plus room for the other fields.
const TEXT_JSON_OVERHEAD = 64 * 1024;

export function payloadTooLarge(max: number): AppError {
  const mib = max / (1024 * 1024);
  const readable = Number.isInteger(mib) ? `${mib} MiB` : `${Math.round(max / 1024)} KiB`;
  return new AppError('PAYLOAD_TOO_LARGE', `Request body too large: at most ${max} bytes (${readable}).`);
}

/** The largest body the JSON variant of the upload route accepts (a text document plus escaping). */
export function textRouteBodyLimit(config: Pick<Config, 'MAX_JSON_BODY_BYTES' | 'MAX_TEXT_DOCUMENT_BYTES'>): number {
  return Math.max(config.MAX_JSON_BODY_BYTES, 2 * config.MAX_TEXT_DOCUMENT_BYTES + TEXT_JSON_OVERHEAD);
}

/**
 * Caps request bodies while they stream in: a declared Content-Length over the cap is refused before
 * a byte is read, a chunked body as soon as the cap is crossed (413 PAYLOAD_TOO_LARGE). Runs after
 * authentication, so an anonymous client learns nothing but 401.
 */
export function requestBodyLimit(config: Config): MiddlewareHandler {
  const limit = (max: number) =>
    bodyLimit({
      maxSize: max,
      onError: () => {
        throw payloadTooLarge(max);
      },
    });
  const json = limit(config.MAX_JSON_BODY_BYTES);
  const text = limit(textRouteBodyLimit(config));
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
    const multipart = (c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data');
    if (multipart && c.req.method === 'POST' && MULTIPART_ROUTES.test(c.req.path)) return next();
    return (c.req.method === 'POST' && TEXT_ROUTE.test(c.req.path) ? text : json)(c, next);
  };
}

/**
 * A response sent before the request body was read to its end (413, FILE_TOO_LARGE, a refused
 * multipart field) says `Connection: close`: the server discards the rest of the body for a moment
 * and then closes the socket, and a client that reused it for its next request would see that
 * request fail.
 */
export function closeUnreadBodies(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (incoming && !incoming.complete) c.res.headers.set('Connection', 'close');
  };
}
