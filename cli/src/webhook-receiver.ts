// The local receiver behind `docsift webhooks listen`: verifies each delivery exactly as docs/service-spec.md §6
// tells receivers to (HMAC over the raw bytes, constant-time compare, 5-minute replay window) and
// optionally forwards the untouched request to a local app, answering the service with the app's
// status so retries behave as they would in production.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_ID_HEADER, verifyWebhook, WebhookVerificationError, type WebhookDedupeStore, type WebhookEvent } from '@docsift/sdk';

export interface ReceivedEvent {
  received_at: string;
  verified: boolean;
  /** Why verification failed. */
  reason?: string;
  event_id?: string;
  event?: string;
  attempt?: number;
  /** A repeat of an event already received (same X-Service-Event-Id): answered 200, not forwarded. */
  repeat?: boolean;
  payload?: WebhookEvent;
  forward?: { url: string; status: number | null; duration_ms: number; error?: string };
}

export interface ReceiverOptions {
  port: number;
  host: string;
  /** Secrets to accept (current and, during a rotation, previous); empty with skipVerify. */
  secrets: string[];
  skipVerify: boolean;
  toleranceSeconds: number;
  forwardTo?: string | undefined;
  forwardTimeoutMs?: number;
  /** Drop repeats by event id (deliveries are at least once); undefined passes every delivery on. */
  seen?: WebhookDedupeStore | undefined;
  onEvent: (e: ReceivedEvent) => void;
  /**
   * Sees each delivery first (verified or not, with its claimed event type); returning true
   * answers it (200 when verified, else 400) without forwarding or reporting it. Read per request,
   * so it can be set and cleared while the receiver runs.
   */
  intercept?: ((e: ReceivedEvent & { claimed_event?: string }) => boolean) | undefined;
}

/** The event type a body says it carries, before (or without) verification. */
function claimedEvent(raw: Buffer): string | undefined {
  try {
    const event = (JSON.parse(raw.toString('utf8')) as { event?: unknown }).event;
    return typeof event === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

const FORWARDED_HEADERS = [
  'content-type',
  'user-agent',
  'x-service-signature',
  'x-service-timestamp',
  'x-service-event-id',
  'x-service-event',
  'x-service-attempt',
];
const MAX_BODY = 5 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

export async function startReceiver(opts: ReceiverOptions): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
      res.writeHead(status, headers);
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method !== 'POST') return reply(405, { error: 'POST webhook deliveries here.' });
    const received: ReceivedEvent = { received_at: new Date().toISOString(), verified: false };
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (err) {
      received.reason = (err as Error).message;
      opts.onEvent(received);
      return reply(413, { error: received.reason });
    }
    const attempt = Number(headerValue(req, 'x-service-attempt'));
    if (Number.isFinite(attempt)) received.attempt = attempt;
    try {
      if (opts.skipVerify) received.payload = JSON.parse(raw.toString('utf8')) as WebhookEvent;
      else
        received.payload = await verifyWebhook({
          secret: opts.secrets,
          headers: req.headers,
          rawBody: raw,
          toleranceSeconds: opts.toleranceSeconds,
        });
      received.verified = !opts.skipVerify;
    } catch (err) {
      received.reason =
        err instanceof WebhookVerificationError ? `${err.reason}: ${err.message}` : `invalid JSON: ${(err as Error).message}`;
      if (opts.intercept?.({ ...received, claimed_event: claimedEvent(raw) })) return reply(400, { error: received.reason });
      opts.onEvent(received);
      return reply(400, { error: received.reason });
    }
    received.event_id = headerValue(req, EVENT_ID_HEADER) ?? received.payload.id;
    received.event = received.payload.event;
    if (opts.intercept?.({ ...received, claimed_event: received.event })) return reply(200, { received: true });
    // Only verified (or, with --skip-verify, any) events are remembered: a forgery cannot mask a real one.
    if (opts.seen && received.event_id) {
      if (await opts.seen.has(received.event_id)) {
        received.repeat = true;
        opts.onEvent(received);
        return reply(200, { received: true, repeat: true });
      }
      await opts.seen.add(received.event_id);
    }

    if (!opts.forwardTo) {
      opts.onEvent(received);
      return reply(200, { received: true });
    }
    const started = Date.now();
    const headers: Record<string, string> = {};
    for (const h of FORWARDED_HEADERS) {
      const v = headerValue(req, h);
      if (v !== undefined) headers[h] = v;
    }
    try {
      const r = await fetch(opts.forwardTo, {
        method: 'POST',
        headers,
        body: new Uint8Array(raw),
        redirect: 'manual',
        signal: AbortSignal.timeout(opts.forwardTimeoutMs ?? 10_000),
      });
      const text = await r.text();
      received.forward = { url: opts.forwardTo, status: r.status, duration_ms: Date.now() - started };
      opts.onEvent(received);
      reply(r.status, text, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      received.forward = { url: opts.forwardTo, status: null, duration_ms: Date.now() - started, error: cause ?? (err as Error).message };
      opts.onEvent(received);
      // The service retries 5xx: a local app that is down behaves like a production outage.
      reply(502, { error: `forward to ${opts.forwardTo} failed: ${received.forward.error}` });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    server,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/`,
    // Keep-alive connections from the service would hold close() open: idle ones go at once, busy
    // ones get a moment to finish writing their answer.
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 300).unref();
      }),
  };
}
