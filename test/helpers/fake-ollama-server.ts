import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Test stand-in for Ollama's POST /api/embed (the one external service the
 * dev guide lets us fake). Embeddings are a hashed bag of words, so texts that
 * share words get similar vectors and results are deterministic.
 * Other suites (search fallback) depend on this API: keep it stable.
 */
export interface FakeOllamaOptions {
  /** Vector length (default 768, like nomic-embed-text). */
  dimension?: number;
  /** Answer every /api/embed with this HTTP status (e.g. 500, 404). */
  failWith?: number;
  /** Wait this long before answering (to exercise client timeouts). */
  delayMs?: number;
  /**
   * Dense vectors (every component non-zero, like a real model's) instead of the hashed bag of
   * words: what a size measurement needs, since sparse vectors compress and real ones do not.
   */
  dense?: boolean;
  /**
   * Random vectors (a seeded Gaussian per text, unrelated to its words): a model that knows
   * nothing, whose similarities carry no meaning.
   */
  random?: boolean;
}

export interface FakeOllama {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Number of POST /api/embed requests received (including failed ones). */
  readonly requests: number;
  /** Number of inputs in each /api/embed request, in arrival order. */
  readonly batchSizes: number[];
  /** While down, /api/embed answers 503. */
  setDown(down: boolean): void;
  /** Changes the answer delay for requests arriving from now on. */
  setDelay(ms: number): void;
  /** Answers the next `count` requests at once, then delays every later one by `ms` (a worker stalls mid-batch, deterministically). */
  stallAfter(count: number, ms: number): void;
  close(): Promise<void>;
}

export const FAKE_OLLAMA_DEFAULT_DIMENSION = 768;

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Deterministic unit vector: each lower-cased word adds ±1 at a hashed slot. */
export function fakeEmbedding(text: string, dimension = FAKE_OLLAMA_DEFAULT_DIMENSION): number[] {
  const v = new Array<number>(dimension).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  // Empty text still gets a fixed non-zero vector (zero vectors break cosine).
  for (const word of words.length > 0 ? words : ['\u0000empty']) {
    const h = fnv1a(word);
    v[h % dimension]! += (h & 0x80000000) !== 0 ? -1 : 1;
    const h2 = fnv1a(word, 0x9747b28c); // a second slot reduces collisions
    v[h2 % dimension]! += (h2 & 0x80000000) !== 0 ? -0.5 : 0.5;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/** Deterministic dense unit vector: the hashed bag of words plus a per-text pseudo-random component in every slot. */
export function denseFakeEmbedding(text: string, dimension = FAKE_OLLAMA_DEFAULT_DIMENSION): number[] {
  const sparse = fakeEmbedding(text, dimension);
  let state = fnv1a(text) || 1;
  const v = sparse.map((x) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return x + ((state >>> 0) / 2 ** 32 - 0.5) * 0.1;
  });
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/** Deterministic random unit vector: Gaussian components seeded by the text, no relation to its meaning. */
export function randomEmbedding(text: string, dimension = FAKE_OLLAMA_DEFAULT_DIMENSION): number[] {
  let state = fnv1a(text) || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) + 0.5) / 2 ** 32;
  };
  const v = Array.from({ length: dimension }, () => Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next()));
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  // Always JSON: the ollama client console.logs while reading non-JSON errors.
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startFakeOllama(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const dimension = opts.dimension ?? FAKE_OLLAMA_DEFAULT_DIMENSION;
  let delayMs = opts.delayMs ?? 0;
  let down = false;
  let requests = 0;
  let stall: { after: number; ms: number } | undefined;
  const batchSizes: number[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET' && (req.url === '/' || req.url === '')) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('Ollama is running');
        return;
      }
      if (req.method !== 'POST' || req.url !== '/api/embed') {
        sendJson(res, 404, { error: 'not found' });
        return;
      }
      const raw = await readBody(req);
      requests++;
      // unref: a pending delay must not keep the test process alive after close().
      const delay = stall && requests > stall.after ? stall.ms : delayMs;
      if (delay) await new Promise((r) => setTimeout(r, delay).unref());
      if (down) return sendJson(res, 503, { error: 'fake ollama is down' });
      if (opts.failWith) return sendJson(res, opts.failWith, { error: `fake ollama failing with ${opts.failWith}` });
      let body: { model?: unknown; input?: unknown };
      try {
        body = JSON.parse(raw) as typeof body;
      } catch {
        return sendJson(res, 400, { error: 'invalid JSON body' });
      }
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      if (typeof body.model !== 'string' || !Array.isArray(input) || input.some((t) => typeof t !== 'string')) {
        return sendJson(res, 400, { error: 'expected {model: string, input: string | string[]}' });
      }
      batchSizes.push(input.length);
      sendJson(res, 200, {
        model: body.model,
        embeddings: (input as string[]).map((t) =>
          (opts.random ? randomEmbedding : opts.dense ? denseFakeEmbedding : fakeEmbedding)(t, dimension),
        ),
        total_duration: 0,
        load_duration: 0,
        prompt_eval_count: input.length,
      });
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    batchSizes,
    setDown(value: boolean) {
      down = value;
    },
    setDelay(ms: number) {
      delayMs = ms;
    },
    stallAfter(count: number, ms: number) {
      stall = { after: requests + count, ms };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // fetch keeps sockets alive; without this close() would wait for them.
        server.closeAllConnections();
      }),
  };
}
