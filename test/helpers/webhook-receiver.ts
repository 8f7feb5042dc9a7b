import { createHmac, timingSafeEqual } from 'node:crypto';
import type { http } from './daemon.js';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Replay tolerance docs/service-spec.md §6 tells receivers to enforce. */
export const TOLERANCE_SECONDS = 5 * 60;

export type Verdict = { ok: true; timestamp: number } | { ok: false; reason: string };

/**
 * Verifies a delivery exactly as docs/service-spec.md §6 tells receivers to: HMAC-SHA256 keyed with the
 * secret over "{X-Service-Timestamp}.{raw body}", lowercase hex after `sha256=`, compared in
 * constant time, and timestamps more than five minutes old rejected (replay protection).
 */
export function verifyWebhook(secret: string, headers: IncomingHttpHeaders, rawBody: Buffer, nowMs = Date.now()): Verdict {
  const ts = headers['x-service-timestamp'];
  const sig = headers['x-service-signature'];
  if (typeof ts !== 'string' || !/^\d+$/.test(ts)) return { ok: false, reason: 'missing or malformed X-Service-Timestamp' };
  if (typeof sig !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(sig))
    return { ok: false, reason: 'missing or malformed X-Service-Signature' };
  const expected = createHmac('sha256', secret).update(`${ts}.`).update(rawBody).digest();
  const given = Buffer.from(sig.slice('sha256='.length), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature mismatch' };
  const age = Math.floor(nowMs / 1000) - Number(ts);
  if (age > TOLERANCE_SECONDS) return { ok: false, reason: `timestamp too old (${age} s)` };
  if (age < -TOLERANCE_SECONDS) return { ok: false, reason: `timestamp in the future (${-age} s)` };
  return { ok: true, timestamp: Number(ts) };
}

export interface Received {
  /** 1-based arrival order. */
  n: number;
  at: number;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Parsed JSON body (only when the signature verified). */
  body: any;
  verdict: Verdict;
  /** The status this receiver answered; 0 when the sender hung up before the answer. */
  status: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait before answering (to exercise the sender's timeout). */
  delayMs?: number;
}

export type Responder = (r: { n: number; verdict: Verdict; body: any }) => Reply;

/** Default: 401 on a bad signature or stale timestamp, 200 otherwise. */
export const acceptVerified: Responder = ({ verdict }) =>
  verdict.ok ? { status: 200, body: 'ok' } : { status: 401, body: verdict.reason };

export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  secret: string;
  respond: Responder;
  /** The receiver's clock (ms); tests move it forward to check replay protection. */
  now: () => number;
  readonly requests: Received[];
  /** Verified requests for which the receiver answered 2xx. */
  accepted(): Received[];
  /** Resolves once `check` holds for the requests so far; rejects after `timeoutMs`. */
  waitFor(check: (reqs: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  /** Sends a captured request again, byte for byte, as an attacker replaying it would. */
  replay(r: Received, mutate?: (body: Buffer) => Buffer): Promise<number>;
  reset(): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records and verifies every delivery. */
export async function startWebhookReceiver(secret = ''): Promise<WebhookReceiver> {
  const requests: Received[] = [];
  let n = 0;
  const state = { secret, respond: acceptVerified, now: () => Date.now() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const verdict = verifyWebhook(state.secret, req.headers, rawBody, state.now());
      // Parse only after verification, as a receiver should.
      const body = verdict.ok ? JSON.parse(rawBody.toString('utf8')) : undefined;
      const reply = state.respond({ n: ++n, verdict, body });
      const entry: Received = { n, at: Date.now(), headers: req.headers, rawBody, body, verdict, status: reply.status };
      requests.push(entry);
      let finished = false;
      res.on('close', () => {
        // The sender hung up first (its timeout): nothing was answered.
        if (!finished) entry.status = 0;
      });
      const send = () => {
        if (res.destroyed) return;
        finished = true;
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/hook`;
  return {
    url,
    port,
    get secret() {
      return state.secret;
    },
    set secret(s: string) {
      state.secret = s;
    },
    get respond() {
      return state.respond;
    },
    set respond(r: Responder) {
      state.respond = r;
    },
    get now() {
      return state.now;
    },
    set now(f: () => number) {
      state.now = f;
    },
    requests,
    accepted: () => requests.filter((r) => r.verdict.ok && r.status >= 200 && r.status < 300),
    async waitFor(check, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      while (!check(requests)) {
        if (Date.now() > end)
          throw new Error(
            `webhook receiver: condition not met within ${timeoutMs} ms (${requests.length} requests: ${requests.map((r) => r.status).join(',')})`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
      return requests;
    },
    replay(r, mutate = (b) => b) {
      const body = mutate(r.rawBody);
      const headers: Record<string, string> = {};
      for (const h of ['content-type', 'user-agent', 'x-service-timestamp', 'x-service-signature', 'x-service-event-id']) {
        const v = r.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      headers['content-length'] = String(body.length);
      return new Promise<number>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    reset() {
      requests.length = 0;
      n = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Makes `rx` the webhook of the key's organization (the daemon needs ALLOW_PRIVATE_URLS) and gives it the secret. */
export async function subscribeReceiver(req: ReturnType<typeof http>, key: string, rx: WebhookReceiver): Promise<void> {
  const hook = await req('POST', '/api/v1/webhooks/', { key, json: { url: rx.url } });
  if (hook.status !== 201) throw new Error(`webhook create failed: ${hook.status} ${hook.text}`);
  rx.secret = hook.body.secret;
}
