import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeSignature, isWellFormedKey } from './api-key.service.ts';

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
    const base = { method: 'POST', path: '/v2/assets/', key: '10840b0f938942feafb7186de74b9682', timestamp: '1519829567' };
    const a = computeSignature('0vyTnawJRFn0Q9tWLTM188Olizc72JczHSXoIlsPQIc=', { ...base, body: Buffer.from('{"name":"a.com"}') });
    const b = computeSignature('0vyTnawJRFn0Q9tWLTM188Olizc72JczHSXoIlsPQIc=', { ...base, body: Buffer.from('{"name":"b.com"}') });
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
