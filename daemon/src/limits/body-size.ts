import type { MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { bodyLimit } from 'hono/body-limit';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { AppEnv } from '../types.js';
import { mediaTypeEssence } from '../net/media-type.js';

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
    const multipart = mediaTypeEssence(c.req.header('content-type')) === 'multipart/form-data';
    if (multipart && c.req.method === 'POST' && MULTIPART_ROUTES.test(c.req.path)) return next();
    return (c.req.method === 'POST' && TEXT_ROUTE.test(c.req.path) ? text : json)(c, next);
  };
}

const LINGER_MS = 2000;
/** A refused body up to this size is read to its end before the answer goes out (Go's net/http drains 256 KiB). */
const DRAIN_MAX_BYTES = 256 * 1024;

/**
 * A response decided before the request body was read to its end (401, 403, 429, 503, 413,
 * FILE_TOO_LARGE, a refused multipart field) must not meet a client that is still sending.
 *
 * A small body nobody has touched (declared Content-Length up to 256 KiB) is read and discarded
 * first, and only then answered, on a connection that stays open: the client has finished sending
 * when the answer arrives, so nothing between them (a reverse proxy that closes outright when told
 * `Connection: close`, as Node's http server does) can reset the connection under it. Answering
 * first lost the answer: a CLI uploading through such a proxy saw EPIPE instead of its 403.
 *
 * A 413 (the body is refused for its size, so none of it is read), a larger or already-started
 * body, or one that does not arrive within 2 s, is answered with
 * `Connection: close`, so the client never reuses a socket the server is about to close. The close
 * lingers (RFC 9112 §9.6): the server half-closes after the response and discards what the client
 * still sends until it stops or 2 s pass, because closing outright would answer those bytes with a
 * reset that can wipe the unread response from the client's buffer.
 */
export function closeUnreadBodies(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!incoming || incoming.complete) return;
    const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
    // 413 refuses the body for its size: it is never read, whatever the size.
    if (c.res.status !== 413 && !incoming.readableDidRead && declared <= DRAIN_MAX_BYTES) {
      c.get('logger')?.debug({ bytes: declared }, 'reading the unread request body before answering');
      if (await drained(incoming, LINGER_MS)) return;
    }
    c.res.headers.set('Connection', 'close');
    lingerOnClose(incoming);
  };
}

/** Reads and discards the rest of a request body; false if it did not end within `ms`. */
function drained(incoming: IncomingMessage, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      incoming.off('end', onEnd);
      incoming.off('close', onClose);
      incoming.off('error', onClose);
      resolve(ok);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(incoming.complete);
    const timer = setTimeout(() => finish(false), ms);
    incoming.on('end', onEnd);
    incoming.on('close', onClose);
    incoming.on('error', onClose);
    incoming.resume();
  });
}

/** Node closes a `Connection: close` socket with destroySoon(); this one half-closes and lingers instead. */
function lingerOnClose(incoming: IncomingMessage): void {
  const socket = incoming.socket as Socket;
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.destroyed) return;
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', () => this.destroy());
    // Keep reading and discarding the rest of the body (a flowing stream nobody listens to drops
    // its data), so the client can finish sending and read the response.
    incoming.resume();
    this.resume();
  };
}
