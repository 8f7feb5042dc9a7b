// The fetch the SDK client uses for the CLI's ordinary requests (no body, or a JSON body), over
// node:http(s). Node's own fetch compiles undici's HTTP parser (WebAssembly) on its first request:
// a one-request command spent most of its time there (`whoami`: 150 ms CPU of which ~90 ms fetch's
// first request, and 0.81 s against 0.39 s wall for one request at load 34). Anything else (a
// multipart upload, a redirect to follow) goes to the global fetch unchanged.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

export async function httpFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = input instanceof Request ? input : new Request(input, init);
  const type = request.headers.get('content-type') ?? '';
  if (request.body && !/^application\/json\b/i.test(type)) return fetch(request);
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const res = await send(request, body);
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400 && request.redirect === 'follow' && res.headers.location) {
    res.resume();
    return fetch(request.url, { method: request.method, headers: request.headers, body, signal: request.signal, redirect: 'follow' });
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const empty = NULL_BODY.has(status) || request.method === 'HEAD';
  if (empty) res.resume();
  return new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
    status,
    statusText: res.statusMessage ?? '',
    headers,
  });
}

/** The request on the wire; rejects as fetch does: with the abort reason, or a TypeError whose cause is the socket error. */
function send(request: Request, body: Buffer | undefined): Promise<http.IncomingMessage> {
  const url = new URL(request.url);
  const signal = request.signal;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    if (body) headers['content-length'] = String(body.length);
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: request.method, headers });
    const onAbort = () => {
      req.destroy();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      signal.removeEventListener('abort', onAbort);
      // A later abort (a timeout while the body streams) ends the body with the reason.
      signal.addEventListener('abort', () => res.destroy(signal.reason), { once: true });
      resolve(res);
    });
    req.on('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(new TypeError('fetch failed', { cause: err }));
    });
    req.end(body);
  });
}
