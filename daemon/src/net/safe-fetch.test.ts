import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createOutboundAgent, FetchTimeoutError, FetchTooLargeError, safeFetch } from './safe-fetch.js';
import type { DnsResolve } from './ssrf.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  socket: number;
}

describe('safeFetch (undici Agent with pinned DNS)', () => {
  let server: Server;
  let port: number;
  const seen: Seen[] = [];
  let sockets = 0;

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const s = req.socket as typeof req.socket & { n?: number };
        s.n ??= ++sockets;
        seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          socket: s.n,
        });
        if (req.url === '/hang') return;
        if (req.url === '/moved') return void res.writeHead(302, { location: '/ok' }).end();
        if (req.url === '/big-chunked') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.on('error', () => {});
          const piece = Buffer.alloc(64 * 1024, 'a');
          let n = 0;
          const pump = () => {
            while (n++ < 40) if (!res.write(piece)) return void res.once('drain', pump);
            res.end();
          };
          return pump();
        }
        if (req.url === '/big-declared') return void res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) }).end();
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const base = { allowPrivate: true, timeoutMs: 5000, maxBytes: 1024 * 1024, maxRedirects: 3 };

  it('sends a string or Buffer body with Content-Length, never chunked', async () => {
    seen.length = 0;
    const json = JSON.stringify({ hello: 'wörld' });
    for (const body of [json, Buffer.from(json)]) {
      const r = await safeFetch(`http://127.0.0.1:${port}/hook`, {
        ...base,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.toString(), 'ok');
    }
    assert.equal(seen.length, 2);
    for (const s of seen) {
      assert.equal(s.headers['content-length'], String(Buffer.byteLength(json)));
      assert.equal(s.headers['transfer-encoding'], undefined);
      assert.equal(s.body, json);
      assert.match(s.headers['user-agent'] ?? '', /^docsift\//);
    }
  });

  it('resolves a name once per connection and connects only to the checked answer; connections are kept alive', async () => {
    seen.length = 0;
    const asked: string[] = [];
    const resolve: DnsResolve = (host, _o, cb) => {
      asked.push(host);
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const agent = createOutboundAgent({ allowPrivate: true, resolve });
    try {
      for (let i = 0; i < 6; i++) {
        const r = await safeFetch(`http://pinned.test:${port}/ok`, { ...base, dispatcher: agent });
        assert.equal(r.status, 200);
      }
      assert.equal(seen.length, 6);
      assert.ok(seen.every((s) => s.headers.host === `pinned.test:${port}`));
      const connections = new Set(seen.map((s) => s.socket)).size;
      assert.ok(connections < 6, `keep-alive reused connections (${connections} for 6 requests)`);
      assert.equal(asked.length, connections, 'one resolution per new connection, none for a reused one');
    } finally {
      await agent.close();
    }
  });

  it('refuses an answer with any private address, before connecting', async () => {
    seen.length = 0;
    const answers: LookupAddress[][] = [
      [{ address: '127.0.0.1', family: 4 }],
      [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      [{ address: '::7f00:1', family: 6 }],
      [{ address: '::ffff:7f00:1', family: 6 }],
    ];
    for (const answer of answers) {
      const agent = createOutboundAgent({ allowPrivate: false, resolve: (_h, _o, cb) => cb(null, answer) });
      try {
        await assert.rejects(
          safeFetch(`http://rebind.test:${port}/ok`, { ...base, allowPrivate: false, dispatcher: agent }),
          (e: Error & { code?: string }) => e.code === 'EUNSAFEADDR' && /private address/.test(e.message),
          JSON.stringify(answer),
        );
      } finally {
        await agent.close();
      }
    }
    assert.equal(seen.length, 0, 'nothing reached the server');
  });

  it('a host name that passes the static URL check is still refused at connect time when it resolves privately', async () => {
    seen.length = 0;
    // A name validatePublicUrl lets through statically, so only the connect-time check can stop it.
    const agent = createOutboundAgent({ allowPrivate: false, resolve: (_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]) });
    await assert.rejects(
      safeFetch(`http://example.test:${port}/ok`, { ...base, allowPrivate: false, dispatcher: agent }),
      /private address/,
    );
    await agent.close();
    assert.equal(seen.length, 0);
  });

  it('caps the response while streaming and by its declared length', async () => {
    for (const path of ['/big-chunked', '/big-declared']) {
      await assert.rejects(safeFetch(`http://127.0.0.1:${port}${path}`, base), FetchTooLargeError, path);
    }
  });

  it('times out as a whole, with FetchTimeoutError', async () => {
    await assert.rejects(safeFetch(`http://127.0.0.1:${port}/hang`, { ...base, timeoutMs: 300 }), FetchTimeoutError);
  });

  it('follows GET redirects up to the limit, never a POST one; refused connections keep their code', async () => {
    const r = await safeFetch(`http://127.0.0.1:${port}/moved`, base);
    assert.equal(r.status, 200);
    assert.equal(r.url, `http://127.0.0.1:${port}/ok`);
    await assert.rejects(safeFetch(`http://127.0.0.1:${port}/moved`, { ...base, maxRedirects: 0 }), /more than 0 redirects/);
    const post = await safeFetch(`http://127.0.0.1:${port}/moved`, { ...base, method: 'POST', body: '{}', maxRedirects: 0 });
    assert.equal(post.status, 302);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await assert.rejects(safeFetch(`http://127.0.0.1:${deadPort}/`, base), (e: Error & { code?: string }) => e.code === 'ECONNREFUSED');
  });
});
