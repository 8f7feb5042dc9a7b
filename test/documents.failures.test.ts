import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { isPrivateAddress, validatePublicUrl } from '../daemon/src/net/ssrf.js';
import { HTML_NOISE_WORDS, samplePath } from './fixtures/samples.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startWebhookReceiver, subscribeReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

// Processing failures through the real worker: the embedding provider is the fake Ollama (the one
// stand-in the dev guide allows), URL documents are fetched from a local HTTP server.

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A small site: the HTML sample, a redirect, an endless redirect chain, a 404 and an oversized page. */
async function startSite(): Promise<{ server: Server; base: string; hits: Map<string, number> }> {
  const html = await readFile(samplePath('sample.html'));
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    if (url === '/page.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    if (url === '/moved') return res.writeHead(302, { location: '/page.html' }).end();
    const loop = /^\/loop\/(\d+)$/.exec(url);
    if (loop) return res.writeHead(302, { location: `/loop/${Number(loop[1]) + 1}` }).end();
    if (url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const piece = Buffer.alloc(1024 * 1024, 'word ');
      let sent = 0;
      const pump = () => {
        while (sent < 25) {
          sent++;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => {});
      return pump();
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('processing failures, Ollama and URL documents', () => {
  let ollama: FakeOllama;
  let site: Awaited<ReturnType<typeof startSite>>;
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let collId: string;
  let rx: WebhookReceiver;

  before(async () => {
    ollama = await startFakeOllama();
    site = await startSite();
    d = await startTestDaemon({
      label: 'doc_failures',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, PROCESS_MAX_ATTEMPTS: '2', ALLOW_PRIVATE_URLS: 'true' },
    });
    t = await createTenant(d, 'failures');
    req = http(d.url);
    // Events are stored for an organization with an active webhook (the only reader of them).
    rx = await startWebhookReceiver();
    await subscribeReceiver(req, t.key, rx);
    const c = await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Failures' } });
    collId = c.body.uuid;
  });
  after(async () => {
    await d?.close();
    await rx?.close();
    await ollama?.close();
    site?.server.close();
  });

  async function uploadText(name: string, text: string): Promise<string> {
    const f = new FormData();
    f.append('file', new Blob([text], { type: 'text/plain' }), name);
    const r = await req('POST', `/api/v1/collections/${collId}/documents/`, { key: t.key, body: f });
    assert.equal(r.status, 201, r.text);
    return r.body.uuid;
  }
  async function uploadUrl(url: string): Promise<string> {
    const r = await req('POST', `/api/v1/collections/${collId}/documents/`, { key: t.key, json: { source_type: 'url', url } });
    assert.equal(r.status, 201, r.text);
    return r.body.uuid;
  }
  const doc = async (id: string) => (await req('GET', `/api/v1/documents/${id}/`, { key: t.key })).body;
  const settled = (id: string) =>
    waitFor(`document ${id} to settle`, async () => {
      const g = await doc(id);
      return g.status !== 'pending' && g;
    });
  const job = async (id: string) =>
    (
      await d.deps.sql<
        { attempts: number; last_error: string | null }[]
      >`select attempts, last_error from graphile_worker.jobs where key = ${'process:' + id}`
    )[0];
  const events = async (id: string) =>
    d.deps.sql<{ type: string; payload: { data: { error_message: string | null; status: string } } }[]>`
      select type, payload from events where payload->'data'->>'uuid' = ${id} order by created_at`;

  it('retries exhausted (PROCESS_MAX_ATTEMPTS=2, provider down): failed with a message and a document.failed event', async () => {
    ollama.setDown(true);
    try {
      const id = await uploadText('doomed.txt', 'This document never gets embeddings.');
      const g = await settled(id);
      assert.equal(g.status, 'failed');
      assert.match(g.error_message, /after 2 attempts/);
      assert.equal(g.chunks_count, 0);
      const ev = await events(id);
      assert.deepEqual(
        ev.map((e) => e.type),
        ['document.failed'],
      );
      assert.equal(ev[0]!.payload.data.error_message, g.error_message);
      // The task returns normally on its final attempt, so graphile-worker completes the job.
      await waitFor('the job to complete', async () => (await job(id)) === undefined, 5000);
    } finally {
      ollama.setDown(false);
    }
  });

  it('transient failure: pending while the provider is down, retried, then indexed exactly once', async (ctx) => {
    ollama.setDown(true);
    // Whatever happens, later tests need the provider up.
    ctx.after(() => ollama.setDown(false));
    const id = await uploadText('patient.txt', 'The saffronmarten waits for the embedding service to return.\n\n'.repeat(80));
    const first = await waitFor('the first attempt to fail', async () => {
      const j = await job(id);
      return j && j.attempts >= 1 && j.last_error ? j : undefined;
    });
    assert.equal(first.attempts, 1);
    const meanwhile = await doc(id);
    assert.equal(meanwhile.status, 'pending', 'a transient failure does not fail the document');
    assert.equal(meanwhile.error_message, '');
    assert.equal((await events(id)).length, 0);

    ollama.setDown(false);
    const g = await settled(id);
    assert.equal(g.status, 'indexed', g.error_message);
    const rows = await d.deps.sql<{ chunk_index: number }[]>`select chunk_index from chunks where document_id = ${id}`;
    assert.equal(rows.length, g.chunks_count);
    assert.ok(g.chunks_count > 1);
    assert.equal(new Set(rows.map((r) => r.chunk_index)).size, rows.length, 'no duplicated chunks');
    assert.deepEqual(
      (await events(id)).map((e) => e.type),
      ['document.indexed'],
      'indexed exactly once',
    );
    await waitFor('the job to complete', async () => (await job(id)) === undefined, 5000);
  });

  it('Ollama end to end: chunks record nomic-embed-text and 768-dimension vectors, sent in batches', async () => {
    const before = ollama.requests;
    const id = await uploadText('ollama.txt', 'Vectors from the stand-in server.');
    assert.equal((await settled(id)).status, 'indexed');
    const rows = await d.deps.sql<{ embedding_model: string; dims: number }[]>`
      select embedding_model, vector_dims(embedding) as dims from chunks where document_id = ${id}`;
    assert.ok(rows.length >= 1);
    for (const r of rows) assert.deepEqual(r, { embedding_model: 'nomic-embed-text', dims: 768 });
    assert.ok(ollama.requests > before, 'the fake server was called');
    assert.ok(ollama.batchSizes.every((n) => n >= 1 && n <= 64));
  });

  describe('URL documents (ALLOW_PRIVATE_URLS=true)', () => {
    it('fetched by the worker and indexed with the HTML reduced to its main text', async () => {
      const id = await uploadUrl(`${site.base}/page.html`);
      const g = await settled(id);
      assert.equal(g.status, 'indexed', g.error_message);
      assert.equal(g.source_type, 'url');
      assert.ok(g.content_text.includes('juniperkite'));
      for (const w of HTML_NOISE_WORDS) assert.ok(!g.content_text.includes(w), `${w} leaked`);
      assert.ok(!g.content_text.includes('<p>'), 'no markup');
      assert.ok(g.content_text.includes('Fish & chips'), 'entities decoded');
      assert.ok(g.file_size > 0, 'file_size is the fetched size');
    });

    it('follows a redirect', async () => {
      const g = await settled(await uploadUrl(`${site.base}/moved`));
      assert.equal(g.status, 'indexed', g.error_message);
      assert.ok(g.content_text.includes('juniperkite'));
    });

    it('permanent failures: HTTP 404, too many redirects, oversized page', async () => {
      const notFound = await settled(await uploadUrl(`${site.base}/nope`));
      assert.equal(notFound.status, 'failed');
      assert.match(notFound.error_message, /404/);
      assert.equal(site.hits.get('/nope'), 1, 'a 404 is not retried');

      const loop = await settled(await uploadUrl(`${site.base}/loop/0`));
      assert.equal(loop.status, 'failed');
      assert.match(loop.error_message, /redirect/i);
      assert.ok(!site.hits.has('/loop/7'), 'the redirect limit stops the chain');

      const big = await settled(await uploadUrl(`${site.base}/big`));
      assert.equal(big.status, 'failed');
      assert.match(big.error_message, /larger than/);
    });
  });

  describe('SSRF protection without ALLOW_PRIVATE_URLS', () => {
    let strict: TestDaemon;
    let st: Tenant;
    let sreq: ReturnType<typeof http>;
    let sColl: string;
    before(async () => {
      strict = await startTestDaemon({ label: 'doc_ssrf', worker: true, env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url } });
      st = await createTenant(strict, 'ssrf');
      sreq = http(strict.url);
      sColl = (await sreq('POST', '/api/v1/collections/', { key: st.key, json: { name: 'Strict' } })).body.uuid;
    });
    after(async () => strict?.close());
    const post = (url: string) =>
      sreq('POST', `/api/v1/collections/${sColl}/documents/`, { key: st.key, json: { source_type: 'url', url } });

    it('a loopback URL is refused at upload with 400', async () => {
      const port = new URL(site.base).port;
      const hitsBefore = site.hits.get('/page.html') ?? 0;
      for (const url of [
        `http://localhost:${port}/page.html`,
        `${site.base}/page.html`,
        `http://[::1]:${port}/`,
        `http://127.1:${port}/`,
      ]) {
        const r = await post(url);
        assert.equal(r.status, 400, `${url}: ${r.text}`);
        assert.equal(r.body.code, 'VALIDATION_FAILED');
      }
      assert.equal(site.hits.get('/page.html') ?? 0, hitsBefore, 'nothing was fetched');
    });

    it('a host name that resolves to a private address is refused by the worker (document failed)', async (ctx) => {
      // A name from /etc/hosts that is not an IP literal nor "localhost", so only the DNS-time check can catch it.
      let host: string | undefined;
      for (const name of [os.hostname(), 'ip6-localhost', 'ip6-loopback']) {
        const addrs = await lookup(name, { all: true }).catch(() => []);
        let statically = false;
        try {
          validatePublicUrl(`http://${name}/`, { allowPrivate: false });
        } catch {
          statically = true;
        }
        if (!statically && addrs.length && addrs.some((a) => isPrivateAddress(a.address))) {
          host = name;
          break;
        }
      }
      if (!host) return ctx.skip('no local host name resolves to a private address here');
      const hitsBefore = site.hits.get('/page.html') ?? 0;
      const r = await post(`http://${host}:${new URL(site.base).port}/page.html`);
      assert.equal(r.status, 201, r.text);
      const g = await waitFor('the URL document to settle', async () => {
        const x = (await sreq('GET', `/api/v1/documents/${r.body.uuid}/`, { key: st.key })).body;
        return x.status !== 'pending' && x;
      });
      assert.equal(g.status, 'failed');
      assert.match(g.error_message, /private address/);
      assert.equal(site.hits.get('/page.html') ?? 0, hitsBefore, 'no request reached the private server');
    });
  });
});
