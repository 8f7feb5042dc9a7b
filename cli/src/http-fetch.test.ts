// httpFetch against a real loopback server: what the SDK's transport relies on from fetch (status,
// headers, JSON bodies both ways, manual and followed redirects, aborts, connection errors), and
// the hand-over of anything else (multipart bodies) to the global fetch.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { httpFetch } from './http-fetch.js';

let server: Server;
let base: string;
const seen: { method: string; url: string; type: string; body: string; headers: IncomingMessage['headers'] }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (s: string) => (body += s));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, type: req.headers['content-type'] ?? '', body, headers: req.headers });
      if (req.url === '/json') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-next-cursor': 'c2' });
        res.end(JSON.stringify({ echo: body ? JSON.parse(body) : null }));
      } else if (req.url === '/empty') {
        res.writeHead(204).end();
      } else if (req.url === '/moved') {
        res.writeHead(302, { location: '/json' }).end();
      } else if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200).end('late'), 5_000).unref();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(16_384, i));
        res.end();
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope","code":"NOT_FOUND"}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe('httpFetch', () => {
  it('sends a JSON body with its headers and reads status, headers and the JSON answer', async () => {
    const r = await httpFetch(
      new Request(`${base}/json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: '{"a":1}',
      }),
    );
    assert.equal(r.status, 201);
    assert.equal(r.headers.get('x-next-cursor'), 'c2');
    assert.deepEqual(await r.json(), { echo: { a: 1 } });
    const got = seen.at(-1)!;
    assert.equal(got.headers.authorization, 'Bearer k');
    assert.equal(got.headers['content-length'], '7');
  });

  it('a URL and init work as they do with fetch; 4xx and 204 answers come back as responses', async () => {
    const missing = await httpFetch(`${base}/nothing`, { headers: { accept: 'application/json' } });
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).code, 'NOT_FOUND');
    const empty = await httpFetch(`${base}/empty`, { method: 'DELETE' });
    assert.equal(empty.status, 204);
    assert.equal(await empty.text(), '');
  });

  it('redirects: manual hands back the 302 and its Location; follow ends at the target', async () => {
    const manual = await httpFetch(new Request(`${base}/moved`, { redirect: 'manual' }));
    assert.equal(manual.status, 302);
    assert.equal(manual.headers.get('location'), '/json');
    const followed = await httpFetch(`${base}/moved`);
    assert.equal(followed.status, 201);
    assert.deepEqual(await followed.json(), { echo: null });
  });

  it('streams a large body whole', async () => {
    const r = await httpFetch(`${base}/big`);
    const bytes = new Uint8Array(await r.arrayBuffer());
    assert.equal(bytes.length, 64 * 16_384);
    assert.equal(bytes[bytes.length - 1], 63);
  });

  it('an abort rejects with its reason; a refused connection is a TypeError whose cause has the code', async () => {
    const reason = new Error('timed out');
    const c = new AbortController();
    const pending = httpFetch(`${base}/slow`, { signal: c.signal });
    setTimeout(() => c.abort(reason), 50);
    await assert.rejects(pending, (err) => err === reason);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await assert.rejects(httpFetch(`http://127.0.0.1:${port}/`), (err: Error) => {
      assert.ok(err instanceof TypeError);
      assert.equal((err.cause as { code?: string }).code, 'ECONNREFUSED');
      return true;
    });
  });

  it('a multipart body goes to the global fetch, whole', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const r = await httpFetch(new Request(`${base}/json-form`, { method: 'POST', body: form }));
    assert.equal(r.status, 404);
    const got = seen.at(-1)!;
    assert.match(got.type, /^multipart\/form-data; boundary=/);
    assert.match(got.body, /filename="a.txt"\r\nContent-Type: text\/plain\r\n\r\nhello/);
  });
});
