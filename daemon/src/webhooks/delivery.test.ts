import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { deliveryJobKey } from './deliver-webhook.js';
import { eventBody, MAX_RETRY_AFTER_MS, retryDelayMs, signPayload } from './delivery.js';

describe('webhook delivery helpers', () => {
  it('signs "{timestamp}.{raw body}" with HMAC-SHA256, lowercase hex after sha256=', () => {
    const body = '{"id":"e1","event":"document.indexed"}';
    const expected = createHmac('sha256', 'whsec_test').update(`1700000000.${body}`).digest('hex');
    assert.equal(signPayload('whsec_test', 1700000000, body), `sha256=${expected}`);
    assert.match(signPayload('k', 1, ''), /^sha256=[0-9a-f]{64}$/);
    assert.notEqual(signPayload('k', 1, body), signPayload('k', 2, body));
  });

  it('the body puts the event id first and keeps the stored payload unchanged', () => {
    const body = eventBody({
      id: 'e1',
      organization_id: 'o',
      type: 'document.failed',
      payload: { event: 'document.failed', timestamp: 't', data: { tags: 'a,b', error_message: 'x' } },
    });
    assert.equal(body, '{"id":"e1","event":"document.failed","timestamp":"t","data":{"tags":"a,b","error_message":"x"}}');
  });

  it('backoff doubles from the base with ±20 % jitter: 30 s, 1, 2, 4, 8 min by default', () => {
    const nominal = [30_000, 60_000, 120_000, 240_000, 480_000];
    nominal.forEach((ms, i) => {
      assert.equal(
        retryDelayMs(i + 1, 30_000, null, () => 0.5),
        ms,
      );
      assert.equal(
        retryDelayMs(i + 1, 30_000, null, () => 0),
        ms * 0.8,
      );
      assert.equal(
        retryDelayMs(i + 1, 30_000, null, () => 1),
        ms * 1.2,
      );
    });
  });

  it('Retry-After wins when longer than the backoff, clamped to an hour', () => {
    assert.equal(
      retryDelayMs(1, 50, 2000, () => 0.5),
      2000,
    );
    assert.equal(
      retryDelayMs(3, 30_000, 1000, () => 0.5),
      120_000,
    );
    assert.equal(
      retryDelayMs(1, 50, 10 * 3600_000, () => 0.5),
      MAX_RETRY_AFTER_MS,
    );
  });

  it('one job key per webhook and event', () => {
    assert.equal(deliveryJobKey('w', 'e'), 'webhook:w:e');
  });
});
