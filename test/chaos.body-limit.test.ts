// Chaos: giant JSON bodies (150 MB and more) against the JSON routes. Each is refused with 413 while
// it streams in, the daemon's memory stays flat, and it keeps serving. The daemon runs in this
// process, so its resident set size is this process's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const MB = 1024 * 1024;

/** An endless-looking JSON body: `{"query":"xxxx…` streamed in 1 MB pieces up to `total` bytes. */
function giantJson(total: number, field = 'query') {
  const piece = Buffer.alloc(MB, 'x');
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent === 0) c.enqueue(Buffer.from(`{"${field}":"`));
      if (sent >= total) {
        c.enqueue(Buffer.from('"}'));
        c.close();
        return;
      }
      sent += piece.length;
      c.enqueue(piece);
    },
  });
  return { stream, sent: () => sent };
}

describe('chaos: giant JSON bodies', () => {
  let d: TestDaemon;
  let t: Tenant;
  let coll: { uuid: string };

  before(async () => {
    d = await startTestDaemon({ label: 'chaos_body' });
    t = await createTenant(d, 'body');
    coll = (await http(d.url)('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Giant' } })).body;
  });
  after(async () => d?.close());

  async function post(p: string, body: ReadableStream<Uint8Array> | Buffer, headers: Record<string, string> = {}) {
    const ac = new AbortController();
    const res = await fetch(`${d.url}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
      body,
      duplex: 'half',
      signal: ac.signal,
    } as RequestInit);
    const text = await res.text();
    ac.abort();
    return { status: res.status, body: JSON.parse(text) as { code: string; error: string } };
  }

  it('three 150 MB bodies streamed to search, collections and text upload: 413 each, memory flat, still serving', async () => {
    global.gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      const targets = ['/api/v1/search/', '/api/v1/collections/', `/api/v1/collections/${coll.uuid}/documents/`];
      const results = await Promise.all(
        targets.map(async (p) => {
          const g = giantJson(150 * MB, p.endsWith('documents/') ? 'content' : 'query');
          const r = await post(p, g.stream);
          return { ...r, sent: g.sent() };
        }),
      );
      for (const r of results) {
        assert.equal(r.status, 413, JSON.stringify(r.body));
        assert.equal(r.body.code, 'PAYLOAD_TOO_LARGE');
        assert.ok(r.sent < 150 * MB, `refused while streaming (after ${r.sent} bytes)`);
      }
    } finally {
      clearInterval(sampler);
    }
    // 450 MB were offered; reading them (the old behaviour) grew the process by about a gigabyte.
    // What remains is the client side of this test, socket buffers and garbage not yet collected.
    assert.ok(peak - base < 100 * MB, `RSS grew by ${Math.round((peak - base) / MB)} MB`);
    const ok = await http(d.url)('POST', '/api/v1/search/', { key: t.key, json: { query: 'still serving', mode: 'text' } });
    assert.equal(ok.status, 200, ok.text);
  });

  it('a declared Content-Length over the cap is refused before a byte of the body is read', async () => {
    const r = await post('/api/v1/search/', Buffer.from('{"query":"x"}'.padEnd(2 * MB, ' ')));
    assert.equal(r.status, 413);
    assert.equal(r.body.code, 'PAYLOAD_TOO_LARGE');
    assert.match(r.body.error, /1 MiB|1048576/);
  });
});
