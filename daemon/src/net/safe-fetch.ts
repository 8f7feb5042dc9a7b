import http from 'node:http';
import https from 'node:https';
import { safeLookup, UnsafeUrlError, validatePublicUrl } from './ssrf.js';

export interface SafeFetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

export interface SafeFetchResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  url: string;
}

export class FetchTooLargeError extends Error {}
export class FetchTimeoutError extends Error {}

function once(url: URL, o: SafeFetchOptions, deadline: number): Promise<SafeFetchResult> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const remaining = Math.max(1, deadline - Date.now());
    const req = mod.request(
      url,
      {
        method: o.method ?? 'GET',
        headers: { 'user-agent': 'docsift/1 (+https://github.com/docsift)', ...o.headers },
        lookup: safeLookup(o.allowPrivate),
        timeout: remaining,
        // No connection reuse: every request re-resolves and re-validates its target.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > o.maxBytes) {
            req.destroy(new FetchTooLargeError(`response exceeds ${o.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.toString() }),
        );
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new FetchTimeoutError(`timed out after ${o.timeoutMs} ms`)), remaining);
    req.on('timeout', () => req.destroy(new FetchTimeoutError(`timed out after ${o.timeoutMs} ms`)));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('close', () => clearTimeout(timer));
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
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
    if (res.status >= 300 && res.status < 400 && location && (o.method ?? 'GET') === 'GET') {
      if (hop >= o.maxRedirects) throw new UnsafeUrlError(`more than ${o.maxRedirects} redirects`);
      url = validatePublicUrl(new URL(location, url).toString(), { allowPrivate: o.allowPrivate });
      continue;
    }
    return res;
  }
}
