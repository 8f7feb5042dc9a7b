import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors.js';
import { formatMediaType, parseMediaType } from '../net/media-type.js';
import type { AppEnv } from '../types.js';

/** A JSON route sent a body of another type (the framework's 415): the envelope's 400, on REST and /mcp alike. */
export function unsupportedMediaType(): AppError {
  return new AppError('VALIDATION_FAILED', 'Unsupported Content-Type: send the body as JSON with "Content-Type: application/json".', {
    _body: ['Expected Content-Type: application/json.'],
  });
}

const hasBody = (headers: Headers) => {
  const length = headers.get('content-length');
  return length === null ? headers.has('transfer-encoding') : length.trim() !== '0';
};

/**
 * Reads a request's Content-Type once, through net/media-type.ts, and hands every later reader
 * its canonical text (`type/subtype; name=value`): the JSON routes' validator, the upload route's
 * choice between JSON and multipart, the multipart parser, the body caps and /mcp then give one
 * verdict for one header. A body whose Content-Type is no media type is refused here, alike on
 * every route; a request without a body keeps whatever it sent.
 */
export function canonicalContentType(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const headers = c.req.raw.headers;
    const sent = headers.get('content-type');
    if (sent === null) return next();
    const parsed = parseMediaType(sent);
    if (!parsed) {
      if (!hasBody(headers)) return next();
      throw new AppError('VALIDATION_FAILED', 'Malformed Content-Type: expected a media type such as "application/json".', {
        _body: ['Content-Type must be type/subtype, then optional "; name=value" parameters (RFC 9110 §8.3.1).'],
      });
    }
    const canonical = formatMediaType(parsed);
    if (canonical !== sent) headers.set('content-type', canonical);
    return next();
  };
}
