import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { WebhookVerificationError } from './errors.js';
import { signWebhook, timingSafeEqualHex, verifyWebhook } from './webhook-verify.js';

const secret = 'whsec_test_secret';
const body = JSON.stringify({ id: 'e1', event: 'document.indexed', timestamp: '2026-01-01T00:00:00.000Z', data: { uuid: 'd1' } });
const now = 1_800_000_000_000;
const ts = String(now / 1000);
// Independent reference: node:crypto, exactly as docs/service-spec.md §6 words it.
const sig = 'sha256=' + createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

const reason = (r: string) => (err: unknown) => err instanceof WebhookVerificationError && err.reason === r;

test('accepts a correct signature over the raw body and returns the parsed event', async () => {
  const event = await verifyWebhook({ secret, headers: { 'X-Service-Signature': sig, 'X-Service-Timestamp': ts }, rawBody: body, now });
  assert.equal(event.event, 'document.indexed');
  // Headers object, bytes body, Node-style lowercase record with array values.
  await verifyWebhook({
    secret,
    headers: new Headers({ 'x-service-signature': sig, 'x-service-timestamp': ts }),
    rawBody: new TextEncoder().encode(body),
    now,
  });
  await verifyWebhook({ secret, headers: { 'x-service-signature': [sig], 'x-service-timestamp': ts }, rawBody: Buffer.from(body), now });
});

test('signWebhook produces what the service sends', async () => {
  const h = await signWebhook({ secret, rawBody: body, timestamp: Number(ts) });
  assert.deepEqual(h, { 'X-Service-Timestamp': ts, 'X-Service-Signature': sig });
});

test('refuses tampered bodies, wrong secrets and malformed headers', async () => {
  const headers = { 'X-Service-Signature': sig, 'X-Service-Timestamp': ts };
  await assert.rejects(verifyWebhook({ secret, headers, rawBody: body.replace('d1', 'd2'), now }), reason('signature_mismatch'));
  await assert.rejects(verifyWebhook({ secret: 'whsec_other', headers, rawBody: body, now }), reason('signature_mismatch'));
  await assert.rejects(verifyWebhook({ secret, headers: { 'X-Service-Timestamp': ts }, rawBody: body, now }), reason('missing_header'));
  await assert.rejects(
    verifyWebhook({ secret, headers: { ...headers, 'X-Service-Signature': 'md5=abc' }, rawBody: body, now }),
    reason('malformed_header'),
  );
  await assert.rejects(
    verifyWebhook({ secret, headers: { ...headers, 'X-Service-Timestamp': 'yesterday' }, rawBody: body, now }),
    reason('malformed_header'),
  );
  // The signature covers the timestamp: shifting it breaks the signature even within tolerance.
  await assert.rejects(
    verifyWebhook({ secret, headers: { ...headers, 'X-Service-Timestamp': String(Number(ts) - 1) }, rawBody: body, now }),
    reason('signature_mismatch'),
  );
});

test('rejects timestamps more than the tolerance old (default 5 minutes) or ahead', async () => {
  const headers = { 'X-Service-Signature': sig, 'X-Service-Timestamp': ts };
  await verifyWebhook({ secret, headers, rawBody: body, now: now + 300_000 });
  await assert.rejects(verifyWebhook({ secret, headers, rawBody: body, now: now + 301_000 }), reason('timestamp_out_of_range'));
  await assert.rejects(verifyWebhook({ secret, headers, rawBody: body, now: now - 301_000 }), reason('timestamp_out_of_range'));
  await verifyWebhook({ secret, headers, rawBody: body, now: now + 3_000_000, toleranceSeconds: 3600 });
});

test('any of several secrets (rotation) or signatures may match', async () => {
  await verifyWebhook({
    secret: ['whsec_old', secret],
    headers: { 'X-Service-Signature': sig, 'X-Service-Timestamp': ts },
    rawBody: body,
    now,
  });
  const other = 'sha256=' + createHmac('sha256', 'whsec_old').update(`${ts}.${body}`).digest('hex');
  await verifyWebhook({ secret, headers: { 'X-Service-Signature': `${other}, ${sig}`, 'X-Service-Timestamp': ts }, rawBody: body, now });
});

test('constant-time comparison gives plain equality', () => {
  assert.equal(timingSafeEqualHex('ab'.repeat(32), 'ab'.repeat(32)), true);
  assert.equal(timingSafeEqualHex('ab'.repeat(32), 'ab'.repeat(31) + 'ac'), false);
  assert.equal(timingSafeEqualHex('ab', 'abab'), false);
  assert.equal(timingSafeEqualHex('', 'a'), false);
});

test('with a `seen` store, a repeat of an accepted event (same X-Service-Event-Id) resolves to null; other events pass', async () => {
  const { SeenEvents } = await import('./webhook-verify.js');
  const seen = new SeenEvents(2);
  const headers = { 'X-Service-Signature': sig, 'X-Service-Timestamp': ts, 'X-Service-Event-Id': 'e1' };
  assert.equal((await verifyWebhook({ secret, headers, rawBody: body, now, seen }))?.id, 'e1');
  assert.equal(await verifyWebhook({ secret, headers, rawBody: body, now, seen }), null);
  // Without the header the payload's id is used; a plain Set works as the store.
  const set = new Set<string>();
  const plain = { 'X-Service-Signature': sig, 'X-Service-Timestamp': ts };
  assert.ok(await verifyWebhook({ secret, headers: plain, rawBody: body, now, seen: set }));
  assert.equal(await verifyWebhook({ secret, headers: plain, rawBody: body, now, seen: set }), null);
  // A forged repeat is still refused for its signature, never waved through as a repeat.
  await assert.rejects(verifyWebhook({ secret: 'whsec_other', headers, rawBody: body, now, seen }), reason('signature_mismatch'));
  // Bounded: the oldest id is forgotten first; delete() lets a failed event's retry through.
  seen.add('e2').add('e3');
  assert.equal(seen.has('e1'), false);
  assert.equal(seen.size, 2);
  seen.delete('e3');
  assert.equal(seen.has('e3'), false);
});

test('splitWebhookTags turns the payload tags string (the spec: comma-separated) into the REST array form', async () => {
  const { splitWebhookTags } = await import('./webhook-verify.js');
  assert.deepEqual(splitWebhookTags('finance, 2024,,'), ['finance', '2024']);
  assert.deepEqual(splitWebhookTags(''), []);
});
