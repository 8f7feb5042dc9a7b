// A loopback reverse proxy built on node:http, as plain as the proxies users put in front of a
// daemon: it passes `Connection: close` on and then closes outright. It records each request, and
// `setLoseReply` can drop an answer after the daemon acted.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  bytes: number;
}

export async function countingProxy(target: string) {
  const seen: Seen[] = [];
  let loseReply: ((s: Seen) => boolean) | undefined;
  const t = new URL(target);
  const server = createServer((req, res) => {
    const entry: Seen = { method: req.method ?? '', path: req.url ?? '', bytes: 0 };
    seen.push(entry);
    req.on('data', (b: Buffer) => (entry.bytes += b.length));
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      if (loseReply?.(entry)) {
        // The daemon has done the work; the client never hears of it.
        upRes.resume();
        upRes.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    reset: () => seen.splice(0),
    setLoseReply: (f: typeof loseReply) => (loseReply = f),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
