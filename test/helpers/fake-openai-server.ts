import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Tiktoken } from 'js-tiktoken/lite';
import { fakeEmbedding } from './fake-ollama-server.js';

/**
 * Test stand-in for an OpenAI-compatible embeddings server (OpenAI, vLLM, TEI, LM Studio, LiteLLM…):
 * POST /v1/embeddings with OpenAI's request, response and error shapes. The dev guide allows a
 * stand-in only for third-party servers that cannot run here; the daemon talks to it through the
 * official `openai` client over real HTTP. Vectors are the Ollama stand-in's hashed bag of words, so
 * texts sharing words are similar and every answer is deterministic.
 */
export interface FakeModel {
  /** Native vector length. */
  dimension: number;
  /** Accepts `dimensions` (shortened, renormalised vectors, like text-embedding-3-*); otherwise 400. */
  supportsDimensions?: boolean;
  /** Ignores `dimensions` silently and answers native vectors (some local servers do). */
  ignoresDimensions?: boolean;
}

export interface FakeOpenAIOptions {
  models?: Record<string, FakeModel>;
  /** When set, requests need `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** Inputs per request before an error (OpenAI: 2048, answered 400; TEI answers 413). */
  maxInputs?: number;
  maxInputsStatus?: 400 | 413;
  /** Tokens per input before 400 (OpenAI: 8191), counted with cl100k_base as OpenAI counts them. */
  maxInputTokens?: number;
  /** Tokens per request before 400 (OpenAI: 300 000). */
  maxRequestTokens?: number;
  /** Answer the data items in reverse order (the protocol orders them by `index`, not by position). */
  reverseOrder?: boolean;
}

export interface RecordedRequest {
  at: number;
  model: string;
  inputs: string[];
  dimensions?: number;
  encodingFormat?: string;
  authorization?: string;
  status: number;
}

export interface ScriptedFailure {
  status: number;
  message?: string;
  /** Sent as the Retry-After header (seconds). */
  retryAfter?: string;
}

export interface FakeOpenAI {
  /** Base URL including /v1, as OPENAI_BASE_URL takes it. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The next requests fail with these answers, in order. */
  failNext(...failures: ScriptedFailure[]): void;
  /** Resolves when `n` requests have arrived in total. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

export const FAKE_OPENAI_MODELS: Record<string, FakeModel> = {
  'text-embedding-3-small': { dimension: 96, supportsDimensions: true },
  'text-embedding-ada-002': { dimension: 64 },
  'local-bge': { dimension: 48, ignoresDimensions: true },
};

let encoder: Promise<Tiktoken> | undefined;
/** cl100k_base, OpenAI's tokenizer for its embedding models; loaded only by stand-ins that enforce token limits. */
async function tokenCounter(): Promise<(s: string) => number> {
  encoder ??= import('js-tiktoken/ranks/cl100k_base').then((m) => new Tiktoken(m.default));
  const enc = await encoder;
  return (s) => enc.encode(s).length;
}

function sendError(res: ServerResponse, status: number, message: string, extra: Record<string, unknown> = {}, headers = {}): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param: null, code: null, ...extra } }, headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
  res.end(data);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function shorten(v: number[], n: number): number[] {
  const cut = v.slice(0, n);
  const norm = Math.hypot(...cut) || 1;
  return cut.map((x) => x / norm);
}

function base64Vector(v: number[]): string {
  return Buffer.from(new Float32Array(v).buffer).toString('base64');
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const models = opts.models ?? FAKE_OPENAI_MODELS;
  const requests: RecordedRequest[] = [];
  const scripted: ScriptedFailure[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return sendError(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
    let body: { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown };
    try {
      body = JSON.parse(await readBody(req)) as typeof body;
    } catch {
      return sendError(res, 400, 'We could not parse the JSON body of your request.');
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    const rec: RecordedRequest = {
      at: Date.now(),
      model: String(body.model),
      inputs: Array.isArray(input) ? input.map(String) : [],
      dimensions: typeof body.dimensions === 'number' ? body.dimensions : undefined,
      encodingFormat: typeof body.encoding_format === 'string' ? body.encoding_format : undefined,
      authorization: req.headers.authorization,
      status: 200,
    };
    requests.push(rec);
    for (const w of waiters.filter((x) => requests.length >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    const fail = (status: number, message: string, extra?: Record<string, unknown>, headers?: Record<string, string>) => {
      rec.status = status;
      sendError(res, status, message, extra, headers);
    };
    const next = scripted.shift();
    if (next)
      return fail(
        next.status,
        next.message ?? `scripted failure ${next.status}`,
        { type: next.status === 429 ? 'rate_limit_exceeded' : 'server_error' },
        next.retryAfter ? { 'retry-after': next.retryAfter } : {},
      );
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
      return fail(401, 'Incorrect API key provided: ***. You can find your API key at the provider.', { code: 'invalid_api_key' });
    const model = typeof body.model === 'string' ? models[body.model] : undefined;
    if (!model)
      return fail(404, `The model \`${String(body.model)}\` does not exist or you do not have access to it.`, { code: 'model_not_found' });
    if (!Array.isArray(input) || !input.length || input.some((t) => typeof t !== 'string' || !t))
      return fail(400, "'$.input' is invalid. Please check the API reference.");
    if (opts.maxInputs && input.length > opts.maxInputs)
      return fail(opts.maxInputsStatus ?? 400, `batch size ${input.length} > maximum allowed batch size ${opts.maxInputs}`);
    const count = opts.maxInputTokens || opts.maxRequestTokens ? await tokenCounter() : (s: string) => Math.ceil(s.length / 4);
    const tokens = (input as string[]).map(count);
    const longest = Math.max(...tokens);
    if (longest > (opts.maxInputTokens ?? Number.POSITIVE_INFINITY))
      return fail(400, `This model's maximum context length is ${opts.maxInputTokens} tokens, however you requested ${longest} tokens.`);
    const total = tokens.reduce((a, b) => a + b, 0);
    if (total > (opts.maxRequestTokens ?? Number.POSITIVE_INFINITY))
      return fail(400, `Requested ${total} tokens, max ${opts.maxRequestTokens} tokens per request`, { code: 'max_tokens_per_request' });
    let dim = model.dimension;
    if (rec.dimensions !== undefined && !model.ignoresDimensions) {
      if (!model.supportsDimensions) return fail(400, 'This model does not support specifying dimensions.', { param: 'dimensions' });
      if (!Number.isInteger(rec.dimensions) || rec.dimensions < 1 || rec.dimensions > model.dimension)
        return fail(400, `Invalid 'dimensions': must be between 1 and ${model.dimension}.`, { param: 'dimensions' });
      dim = rec.dimensions;
    }
    const data = (input as string[]).map((text, index) => {
      const v = shorten(fakeEmbedding(text, model.dimension), dim);
      return { object: 'embedding', index, embedding: rec.encodingFormat === 'base64' ? base64Vector(v) : v };
    });
    if (opts.reverseOrder) data.reverse();
    sendJson(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: total, total_tokens: total } });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext: (...f) => scripted.push(...f),
    waitForRequests: (n) => (requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
