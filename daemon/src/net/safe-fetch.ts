import { Agent, type Dispatcher, request } from 'undici';
import { type DnsResolve, safeLookup, UnsafeUrlError, validatePublicUrl } from './ssrf.js';

export interface SafeFetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Tests only: an agent from createOutboundAgent() with its own resolver. */
  dispatcher?: Dispatcher;
}

export interface SafeFetchResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  url: string;
}

export class FetchTooLargeError extends Error {}
export class FetchTimeoutError extends Error {}

const USER_AGENT = 'docsift/1 (+https://github.com/docsift)';
/** A connect that takes longer than this is abandoned even when the overall deadline is later. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Idle keep-alive sockets are dropped after this (or the server's own Keep-Alive hint, if shorter). */
const KEEP_ALIVE_MS = 4_000;
const UNDICI_TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * An undici Agent whose every new connection resolves its host once through safeLookup: all
 * addresses of the answer are checked and the socket connects only to those checked addresses, so
 * a DNS answer that changes between check and connect (rebinding) cannot reach a private target.
 * Kept-alive sockets are reused only for the origin they were opened (and checked) for.
 */
export function createOutboundAgent(o: { allowPrivate: boolean; resolve?: DnsResolve }): Agent {
  return new Agent({
    connect: { lookup: safeLookup(o.allowPrivate, o.resolve), timeout: CONNECT_TIMEOUT_MS },
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: 60_000,
    // Per origin: enough for a burst of deliveries to one receiver without opening hundreds of sockets.
    connections: 16,
  });
}

// One agent per SSRF policy, shared by every request of the process (idle sockets do not hold it open).
const agents = new Map<boolean, Agent>();
function agentFor(allowPrivate: boolean): Agent {
  let a = agents.get(allowPrivate);
  if (!a) {
    a = createOutboundAgent({ allowPrivate });
    agents.set(allowPrivate, a);
  }
  return a;
}

async function once(url: URL, o: SafeFetchOptions, deadline: number): Promise<SafeFetchResult> {
  const remaining = Math.max(1, deadline - Date.now());
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new FetchTimeoutError(`timed out after ${o.timeoutMs} ms`)), remaining);
  try {
    // A string or Buffer body is sent with Content-Length (never chunked): some receivers cannot read chunked bodies.
    const res = await request(url, {
      dispatcher: o.dispatcher ?? agentFor(o.allowPrivate),
      method: o.method ?? 'GET',
      headers: { 'user-agent': USER_AGENT, ...o.headers },
      body: o.body ?? null,
      signal: abort.signal,
      headersTimeout: remaining,
      bodyTimeout: remaining,
    });
    const declared = Number(res.headers['content-length']);
    if (declared > o.maxBytes) {
      res.body.destroy();
      throw new FetchTooLargeError(`response exceeds ${o.maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > o.maxBytes) {
        res.body.destroy();
        throw new FetchTooLargeError(`response exceeds ${o.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), url: url.toString() };
  } catch (err) {
    if (abort.signal.aborted) throw abort.signal.reason;
    if (UNDICI_TIMEOUTS.has((err as { code?: string }).code ?? '')) throw new FetchTimeoutError(`timed out after ${o.timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fetches a user-supplied URL with SSRF protection (validated at every hop and at connect time),
 * a size cap enforced while streaming, an overall timeout and a redirect limit.
 */
export async function safeFetch(rawUrl: string, o: SafeFetchOptions): Promise<SafeFetchResult> {
  const deadline = Date.now() + o.timeoutMs;
  let url = validatePublicUrl(rawUrl, { allowPrivate: o.allowPrivate });
  for (let hop = 0; ; hop++) {
    const res = await once(url, o, deadline);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && typeof location === 'string' && (o.method ?? 'GET') === 'GET') {
      if (hop >= o.maxRedirects) throw new UnsafeUrlError(`more than ${o.maxRedirects} redirects`);
      url = validatePublicUrl(new URL(location, url).toString(), { allowPrivate: o.allowPrivate });
      continue;
    }
    return res;
  }
}
