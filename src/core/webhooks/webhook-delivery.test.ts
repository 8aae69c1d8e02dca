import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventRecord } from '../events/event.types.ts';
import { backoffMs, isSubscribed } from './webhook-delivery.service.ts';
import { newWebhookSecret, signedHeaders, signPayload } from './webhook-signing.ts';
import type { Webhook } from './webhook.types.ts';

describe('webhook signing', () => {
  it("matches the Standard Webhooks specification's reference signature", () => {
    // The test vector of the specification's reference libraries (standard-webhooks/standard-webhooks).
    assert.equal(
      signPayload(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('makes whsec_ secrets of 32 random bytes and signs the headers of one delivery', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(newWebhookSecret(), secret);
    const headers = signedHeaders(secret, 'evt', '{}', new Date(1_700_000_000_900));
    assert.deepEqual(headers, {
      'content-type': 'application/json',
      'webhook-id': 'evt',
      'webhook-timestamp': '1700000000',
      'webhook-signature': signPayload(secret, 'evt', 1_700_000_000, '{}'),
    });
  });
});

describe('webhook back-off and filters', () => {
  it('doubles from the base up to the cap, less at most 20 % of jitter', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, 5000, 60_000, 0)),
      [5000, 10_000, 20_000, 40_000, 60_000, 60_000],
    );
    assert.equal(backoffMs(1, 5000, 60_000, 1), 4000);
    assert.equal(backoffMs(200, 5000, 3_600_000, 0.5), 3_240_000);
  });

  const hook = (over: Partial<Webhook>) =>
    ({ kinds: ['vulnerability.new'], minSeverity: null, assetIds: [], ...over }) as Webhook;
  const event = (over: Partial<EventRecord>) =>
    ({ kind: 'vulnerability.new', severity: 'medium', assetId: 7, ...over }) as EventRecord;

  it('keeps an event of a subscribed kind, at or above the severity, of a subscribed asset', () => {
    assert.equal(isSubscribed(hook({}), event({})), true);
    assert.equal(isSubscribed(hook({}), event({ kind: 'port.opened' })), false);
    assert.equal(isSubscribed(hook({ minSeverity: 'medium' }), event({ severity: 'medium' })), true);
    assert.equal(isSubscribed(hook({ minSeverity: 'high' }), event({ severity: 'medium' })), false);
    assert.equal(isSubscribed(hook({ minSeverity: 'low' }), event({ severity: null })), false);
    assert.equal(isSubscribed(hook({ assetIds: [7] }), event({})), true);
    assert.equal(isSubscribed(hook({ assetIds: [8] }), event({})), false);
    assert.equal(isSubscribed(hook({ assetIds: [7] }), event({ assetId: null })), false);
  });
});
