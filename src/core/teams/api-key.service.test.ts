import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeSignature, isKeyId, isWellFormedKey, newKeyId } from './api-key.service.ts';

describe('request signatures', () => {
  it('reproduces the test vector of the API contract', () => {
    const signature = computeSignature('0vyTnawJRFn0Q9tWLTM188Olizc72JczHSXoIlsPQIc=', {
      method: 'GET',
      path: '/v2/domains/',
      key: '10840b0f938942feafb7186de74b9682',
      timestamp: '1519829567',
      body: Buffer.alloc(0),
    });
    assert.equal(signature, '6jpu6S4cQwEY4uLk+xELSe1RhajVJP0QEDpGWZ5T+U0=');
  });

  it('signs the body bytes, so another body gives another signature', () => {
    const base = {
      method: 'POST',
      path: '/v2/assets/',
      key: '10840b0f938942feafb7186de74b9682',
      timestamp: '1519829567',
    };
    const a = computeSignature('0vyTnawJRFn0Q9tWLTM188Olizc72JczHSXoIlsPQIc=', {
      ...base,
      body: Buffer.from('{"name":"a.com"}'),
    });
    const b = computeSignature('0vyTnawJRFn0Q9tWLTM188Olizc72JczHSXoIlsPQIc=', {
      ...base,
      body: Buffer.from('{"name":"b.com"}'),
    });
    assert.notEqual(a, b);
  });
});

describe('key shape', () => {
  it('accepts 32 lowercase hex characters only', () => {
    assert.equal(isWellFormedKey('10840b0f938942feafb7186de74b9682'), true);
    assert.equal(isWellFormedKey('10840B0F938942FEAFB7186DE74B9682'), false);
    assert.equal(isWellFormedKey('10840b0f938942feafb7186de74b968'), false);
    assert.equal(isWellFormedKey('not-a-key'), false);
  });
});

describe('key ids', () => {
  it('are key_ and 10 base32 characters, different every time', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newKeyId()));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^key_[0-9a-hjkmnp-tv-z]{10}$/);
    assert.equal(
      [...ids].every((id) => isKeyId(id)),
      true,
    );
  });

  it('tell an id from a key and from near misses', () => {
    assert.equal(isKeyId('key_0123456789'), true);
    assert.equal(isKeyId('key_012345678'), false);
    assert.equal(isKeyId('key_01234567ui'), false, 'i, l, o and u are not in the alphabet');
    assert.equal(isKeyId('KEY_0123456789'), false);
    assert.equal(isKeyId('10840b0f938942feafb7186de74b9682'), false);
  });
});
