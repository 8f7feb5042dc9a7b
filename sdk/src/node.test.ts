// The Node entry's `dispatcher` option over real HTTP: a loopback server counts the TCP connections
// it accepts, so the test sees whether the caller's undici Agent (its pool and keep-alive) carried
// the requests, uploads included.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Agent } from 'undici';
import { createClient } from './node.js';

let server: Server;
let baseUrl: string;
let connections = 0;
const requests: { method: string; url: string; bytes: number }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (b: Buffer) => (bytes += b.length));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, bytes });
      const upload = req.method === 'POST';
      res.writeHead(upload ? 201 : 200, { 'content-type': 'application/json' });
      res.end(upload ? JSON.stringify({ uuid: 'd1', title: 'a', status: 'pending' }) : '[]');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const apiKey = 'svc_' + 'a'.repeat(40);

test('requests go through the dispatcher given: 12 calls, uploads among them, on its one kept-alive connection', async () => {
  const agent = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
  const connects: string[] = [];
  agent.on('connect', (origin) => connects.push(String(origin)));
  try {
    const client = createClient({ baseUrl, apiKey, dispatcher: agent });
    connections = 0;
    requests.length = 0;
    for (let i = 0; i < 10; i++) assert.deepEqual(await client.collections.list(), []);
    for (let i = 0; i < 2; i++) {
      const up = await client.documents.upload('c1', { name: `f${i}.md`, data: `# F${i}\n`.repeat(1000) });
      assert.equal(up.uuid, 'd1');
    }
    assert.equal(requests.length, 12);
    assert.ok(
      requests.slice(10).every((r) => r.method === 'POST' && r.bytes > 5000),
      JSON.stringify(requests.slice(10)),
    );
    assert.equal(connections, 1, 'one connection, reused');
    assert.equal(connects.length, 1, "the agent's own connection");
  } finally {
    await agent.close();
  }
});

test('without a dispatcher the client still works (global fetch), and a custom fetch is still used with one', async () => {
  const plain = createClient({ baseUrl, apiKey });
  assert.deepEqual(await plain.collections.list(), []);
  const agent = new Agent();
  let viaCustomFetch = 0;
  try {
    const client = createClient({
      baseUrl,
      apiKey,
      dispatcher: agent,
      fetch: (input, init) => {
        viaCustomFetch++;
        assert.equal((init as { dispatcher?: unknown } | undefined)?.dispatcher, agent);
        return fetch(input, init);
      },
    });
    assert.deepEqual(await client.collections.list(), []);
    assert.equal(viaCustomFetch, 1);
  } finally {
    await agent.close();
  }
});
