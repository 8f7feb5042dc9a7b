// Property-based fuzzing of every request surface that takes client bytes: the multipart upload
// routes (API upload and replace, the web UI's upload), JSON bodies (search, collections, keys,
// webhooks, JSON documents), headers (auth, content-type, boundary), filters (search, list and MCP:
// what the parser accepts must run, the rest is 400) and cursors and query strings.
// Every case must hold: no uncaught exception (each would end a real daemon), no 5xx but a
// documented 503, the envelope (`error`, `code`, optional `fields`) on every 4xx; after each
// surface: no temp file, unreferenced blob or open descriptor under the data dir, and flat RSS.
//
// Seeded: FUZZ_SEED=<n> replays a run (the seed is printed on failure, with fast-check's path);
// FUZZ_RUNS=<n> sets the cases per surface (default sized to about 60 s on 2 cores), e.g. the
// nightly run: FUZZ_RUNS=10000 npm test -- test/fuzz.requests.test.ts
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ERROR_CODES } from '../daemon/src/errors.js';
import { samplePath } from './fixtures/samples.js';
import { admin } from './helpers/browser.js';
import { blobFiles, multipartBody, openFdsUnder, until, type Part } from './helpers/chaos.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { filterCase, filterThroughEveryTransport } from './helpers/fuzz-filters.js';
import { BOUNDARY, contentType, jsonish, type MultipartCase, multipartCase, mutate, objectKey } from './helpers/fuzz-requests.js';
import { webSession } from './helpers/web-session.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
/** Filters per default run: each is sent to search, to the document list (when its URL fits) and to MCP. */
const FILTER_CASES = 300;
/** Cases in all, shared among the surfaces in proportion to their default counts (which add up to DEFAULT_TOTAL). */
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : undefined;
const DEFAULT_TOTAL = 3 * 200 + 5 * 150 + 250 + 350 + FILTER_CASES;
const runsOf = (defaultRuns: number) => (RUNS === undefined ? defaultRuns : Math.max(1, Math.round((RUNS * defaultRuns) / DEFAULT_TOTAL)));
const PASSWORD = 'fuzzing passphrase for the web';
/** RSS growth allowed over a whole surface's cases (GC and allocator noise included). */
const RSS_GROWTH_MB = 150;

interface Reply {
  status: number;
  text: string;
}

describe(`fuzz: hostile requests (FUZZ_SEED=${SEED})`, () => {
  let d: TestDaemon;
  let t: Tenant;
  let coll: { uuid: string };
  let docId: string;
  let web: { cookie: string; csrf: string };
  let pdf: Buffer;
  let cases = 0;
  const uncaught: string[] = [];
  const onUncaught = (err: unknown) => uncaught.push(String((err as Error)?.stack ?? err));

  before(async () => {
    process.on('uncaughtException', onUncaught);
    d = await startTestDaemon({ label: 'fuzz', env: { ALLOW_PRIVATE_URLS: 'false' } });
    t = await createTenant(d, 'fuzz');
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    web = await webSession(d, t.email, PASSWORD);
    // Every case may search: a plan whose quota no run reaches (Free stops at 1,000 searches).
    assert.equal((await admin(d, ['set-plan', '--org', t.orgId, '--plan', 'pro'])).code, 0);
    coll = await (await call('POST', '/api/v1/collections/', { json: { name: 'Fuzz' } })).json();
    pdf = await readFile(samplePath('sample.pdf'));
    const f = new FormData();
    f.append('file', new Blob([new Uint8Array(pdf)]), 'keeper.pdf');
    docId = (await (await call('POST', `/api/v1/collections/${coll.uuid}/documents/`, { body: f })).json()).uuid;
    assert.ok(docId);
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    await d?.close();
    process.stderr.write(`[fuzz.requests] ${cases} cases, seed ${SEED}\n`);
  });

  function call(
    method: string,
    path: string,
    o: { json?: unknown; body?: BodyInit; headers?: Record<string, string>; auth?: string | null } = {},
  ) {
    const headers: Record<string, string> = { ...o.headers };
    if (o.auth !== null) headers.authorization ??= o.auth ?? `Bearer ${t.key}`;
    let body = o.body;
    if (o.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(o.json);
    }
    return fetch(d.url + path, { method, headers, body: body ?? null, redirect: 'manual' });
  }

  /** The per-case invariants; a failure names the seed so the run replays. */
  async function check(res: Response, what: string): Promise<Reply> {
    cases++;
    const text = await res.text();
    const where = `${what} → ${res.status} ${text.slice(0, 300)} (replay: FUZZ_SEED=${SEED})`;
    assert.deepEqual(uncaught.splice(0), [], `no uncaught exception: ${where}`);
    if (res.status >= 500) {
      assert.equal(res.status, 503, `no 5xx but a documented 503: ${where}`);
      assert.equal(JSON.parse(text).code, 'SERVICE_UNAVAILABLE', where);
    }
    // MCP answers in JSON-RPC (its transport's own errors included), not in the REST envelope.
    if (res.status >= 400 && what.includes(' /mcp ')) {
      assert.doesNotThrow(() => JSON.parse(text), `a JSON answer: ${where}`);
      return { status: res.status, text };
    }
    if (res.status >= 400) {
      let body: { error?: unknown; code?: unknown; fields?: unknown };
      try {
        body = JSON.parse(text);
      } catch {
        return assert.fail(`a 4xx is the JSON envelope: ${where}`);
      }
      assert.equal(typeof body.error, 'string', `envelope error: ${where}`);
      assert.ok(ERROR_CODES.includes(body.code as never), `envelope code: ${where}`);
      if (body.fields !== undefined) {
        assert.ok(body.fields && typeof body.fields === 'object', `envelope fields: ${where}`);
        for (const v of Object.values(body.fields)) assert.ok(Array.isArray(v) && v.every((m) => typeof m === 'string'), where);
      }
    }
    return { status: res.status, text };
  }

  /** After a surface: still serving, nothing leaked on disk or in descriptors, RSS flat. */
  async function assertClean(rss0: number) {
    assert.equal((await fetch(`${d.url}/healthz`)).status, 200, 'the process still serves');
    const referenced = async () =>
      (
        await d.deps.sql<
          { k: string }[]
        >`select blob_key as k from documents where blob_key is not null union select blob_key from orphan_blobs`
      ).map((r) => r.k);
    const extra = async () => {
      const want = new Set(await referenced());
      return (await blobFiles(d.dataDir)).filter((f) => !want.has(f));
    };
    await until(async () => ((await extra()).length === 0 ? true : undefined), 10_000, 'no temp file or unreferenced blob').catch(
      async (err) => assert.fail(`${err.message}: ${JSON.stringify((await extra()).slice(0, 5))} (FUZZ_SEED=${SEED})`),
    );
    await until(async () => ((await openFdsUnder(d.dataDir)).length === 0 ? true : undefined), 10_000, 'no open descriptor').catch(
      async (err) => assert.fail(`${err.message} (FUZZ_SEED=${SEED})`),
    );
    global.gc?.();
    const growth = (process.memoryUsage.rss() - rss0) / 2 ** 20;
    assert.ok(growth < RSS_GROWTH_MB, `RSS grew by ${growth.toFixed(0)} MB over the surface (FUZZ_SEED=${SEED})`);
  }

  async function surface(name: string, defaultRuns: number, prop: fc.IAsyncProperty<any>) {
    const rss0 = process.memoryUsage.rss();
    const t0 = performance.now();
    const numRuns = runsOf(defaultRuns);
    await fc.assert(prop, { seed: SEED, numRuns, endOnFailure: true });
    await assertClean(rss0);
    process.stderr.write(`[fuzz.requests] ${name}: ${numRuns} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }

  const txt = Buffer.from('Plain text, fuzzed.\n');
  const buildMultipart = (c: MultipartCase) => {
    const parts: Part[] = c.parts.map((p) =>
      'filename' in p ? { name: p.name, filename: p.filename, type: p.type, data: p.pdf ? pdf : txt } : { name: p.name, data: p.data },
    );
    return c.mutations.reduce((b, m) => mutate(b, m), multipartBody(BOUNDARY, parts));
  };

  // ---- surfaces ----------------------------------------------------------------------------
  for (const route of ['API upload', 'API replace', 'web upload'] as const) {
    it(`multipart: ${route}`, async () => {
      const target = () =>
        route === 'API upload'
          ? `/api/v1/collections/${coll.uuid}/documents/`
          : route === 'API replace'
            ? `/api/v1/documents/${docId}/replace/`
            : `/app/collections/${coll.uuid}/documents`;
      await surface(
        `multipart ${route}`,
        200,
        fc.asyncProperty(multipartCase, async (c) => {
          const body = buildMultipart(c);
          const headers: Record<string, string> = { 'content-type': c.contentType };
          const web = route === 'web upload';
          if (web) Object.assign(headers, { cookie: webCookie(), 'x-csrf-token': webCsrf(), accept: 'application/json' });
          await check(
            await call('POST', target(), { body: new Uint8Array(body), headers, auth: web ? null : undefined }),
            `${route} ${JSON.stringify(c).slice(0, 400)}`,
          );
        }),
      );
    });
  }
  const webCookie = () => web.cookie;
  const webCsrf = () => web.csrf;

  it('the nameless part on the web UI upload (the 60-byte request): 400, the process keeps serving', async () => {
    const nameless = `--XB\r\nContent-Disposition: form-data\r\n\r\nv\r\n--XB--\r\n`;
    const r = await check(
      await call('POST', `/app/collections/${coll.uuid}/documents`, {
        body: nameless,
        auth: null,
        headers: {
          'content-type': 'multipart/form-data; boundary=XB',
          cookie: web.cookie,
          'x-csrf-token': web.csrf,
          accept: 'application/json',
        },
      }),
      'web nameless',
    );
    assert.equal(r.status, 400, r.text);
    assert.equal(JSON.parse(r.text).code, 'VALIDATION_FAILED');
    assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
  });

  const JSON_ROUTES: [string, string, () => Record<string, unknown>][] = [
    ['POST', '/api/v1/search/', () => ({ query: 'fuzz', limit: 5, collections: [coll.uuid] })],
    ['POST', '/api/v1/collections/', () => ({ name: 'fuzzed', description: 'd', is_public: false })],
    ['POST', '/api/v1/keys/', () => ({ name: 'fuzz key', expires_in_days: 30 })],
    ['POST', '/api/v1/webhooks/', () => ({ url: 'https://example.com/hook', events: ['document.indexed'] })],
    ['POST', `/api/v1/collections/{coll}/documents/`, () => ({ source_type: 'text', content: 'fuzz text', title: 't', tags: ['a'] })],
  ];
  for (const [method, path, valid] of JSON_ROUTES) {
    it(`JSON body: ${method} ${path}`, async () => {
      await surface(
        `json ${path}`,
        150,
        fc.asyncProperty(
          fc.record({
            edits: fc.array(fc.tuple(objectKey, jsonish), { maxLength: 3 }),
            drop: fc.array(fc.nat(6), { maxLength: 2 }),
            raw: fc.option(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.string({ maxLength: 8 })), { freq: 3 }),
            whole: fc.option(jsonish, { freq: 6 }),
            contentType: fc.oneof({ weight: 5, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
          }),
          async (c) => {
            const base = valid();
            const keys = Object.keys(base);
            for (const i of c.drop) delete base[keys[i % keys.length]!];
            for (const [k, v] of c.edits) {
              const key = k === '' ? keys[0]! : k.length < 3 ? keys[k.length % keys.length]! : k;
              // defineProperty: "__proto__" becomes a key of the JSON body, not the object's prototype.
              Object.defineProperty(base, key, { value: v, enumerable: true, configurable: true, writable: true });
            }
            let text = JSON.stringify(c.whole ?? base);
            if (c.raw) {
              const at = Math.floor(c.raw[0] * text.length);
              text = text.slice(0, at) + c.raw[1] + text.slice(at + (c.raw[1].length % 3));
            }
            const p = path.replace('{coll}', coll.uuid);
            await check(
              await call(method, p, { body: text, headers: { 'content-type': c.contentType } }),
              `${method} ${p} ${text.slice(0, 300)}`,
            );
          },
        ),
      );
    });
  }

  it('headers: auth and content-type on every kind of route', async () => {
    const auth = fc
      .oneof(
        fc.constant(undefined),
        fc.constant(null),
        fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
        fc.constantFrom('Bearer', 'Bearer ', 'bearer ', 'Basic Zm9vOmJhcg==', 'Bearer svc_', `Bearer ${'a'.repeat(5000)}`),
        fc.nat(40).map((n) => `Bearer ${t.key.slice(0, n)}`),
        fc
          .tuple(fc.nat(60), fc.string({ minLength: 1, maxLength: 1 }))
          .map(([n, ch]) => `Bearer ${t.key.slice(0, n)}${ch}${t.key.slice(n + 1)}`),
      )
      .map((a) => (a === undefined ? undefined : a === null ? null : a.replace(/[\r\n\u0000]/g, '').replace(/[^\x20-\x7e]/g, '?')));
    const routes = [
      ['GET', '/api/v1/collections/'],
      ['GET', '/api/v1/documents/?limit=2'],
      ['POST', '/api/v1/search/'],
      ['POST', `/api/v1/collections/{coll}/documents/`],
      ['GET', '/api/v1/keys/usage/'],
      ['POST', '/mcp'],
    ] as const;
    await surface(
      'headers',
      250,
      fc.asyncProperty(fc.record({ route: fc.constantFrom(...routes), auth, contentType }), async (c) => {
        const method: string = c.route[0];
        const path: string = c.route[1];
        const body =
          method === 'POST'
            ? JSON.stringify({ query: 'x', source_type: 'text', content: 'c', jsonrpc: '2.0', id: 1, method: 'tools/list' })
            : undefined;
        const headers: Record<string, string> = c.contentType ? { 'content-type': c.contentType } : {};
        if (path === '/mcp') headers.accept = 'application/json, text/event-stream';
        const res = await call(method, path.replace('{coll}', coll.uuid), { body, headers, auth: c.auth });
        await check(res, `${method} ${path} auth=${String(c.auth).slice(0, 80)} ct=${c.contentType}`);
      }),
    );
  });

  it('filters: whatever the parser accepts runs (200) in search, list and MCP; the rest is 400 VALIDATION_FAILED', async () => {
    let runs = 0;
    let ran = 0;
    await surface(
      'filters',
      FILTER_CASES,
      fc.asyncProperty(filterCase, fc.nat(2), async (raw, mode) => {
        runs++;
        if (await filterThroughEveryTransport(raw, mode, call, check)) ran++;
      }),
    );
    process.stderr.write(`[fuzz.requests] filters: ${ran} of ${runs} accepted by the parser and run\n`);
    assert.ok(ran > runs / 5 && ran < runs, 'the cases straddle the parser: some run, some are refused');
  });

  it('cursors and query strings of the lists', async () => {
    const date = fc.oneof(
      fc.date({ noInvalidDate: true }).map((x) => x.toISOString()),
      fc.constantFrom('0000-01-01T00:00:00.000Z', '-000001-01-01T00:00:00.000Z', '+010000-01-01T00:00:00.000Z', '2026-02-30T00:00:00.000Z'),
      fc.string({ maxLength: 30 }),
    );
    const cursor = fc.oneof(
      fc.tuple(date, fc.oneof(fc.uuid(), fc.string({ maxLength: 40 }))).map(([a, b]) => Buffer.from(`${a}|${b}`).toString('base64url')),
      fc
        .tuple(date, fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 5 })))
        .map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
      fc.string({ maxLength: 60 }),
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('base64url')),
    );
    const value = fc.oneof(
      cursor,
      fc.integer({ min: -5, max: 1000 }).map(String),
      fc.string({ maxLength: 20 }),
      fc.constantFrom('', '%00', '1e3', 'NaN', 'pending'),
    );
    const lists = [
      ['/api/v1/documents/', ['cursor', 'limit', 'status', 'tag', 'collection']],
      ['/api/v1/webhooks/deliveries/', ['cursor', 'limit', 'event_id']],
      ['/api/v1/keys/usage/', ['cursor', 'days', 'recent_limit']],
      ['/api/v1/collections/', ['limit', 'cursor']],
      ['/api/v1/search/tags/', ['tag', 'limit']],
    ] as const;
    await surface(
      'cursors and query strings',
      350,
      fc.asyncProperty(
        fc.record({ list: fc.constantFrom(...lists), params: fc.array(fc.tuple(fc.nat(5), value), { minLength: 1, maxLength: 4 }) }),
        async (c) => {
          const path: string = c.list[0];
          const names: readonly string[] = c.list[1];
          const qs = c.params.map(([i, v]) => `${names[i % names.length]}=${encodeURIComponent(v)}`).join('&');
          await check(await call('GET', `${path}?${qs}`), `GET ${path}?${qs}`);
        },
      ),
    );
  });
});
