import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintOf, normaliseLocation } from './fingerprint.ts';

describe('finding fingerprints', () => {
  it('ignores cosmetic differences of the location', () => {
    const a = fingerprintOf('xss', 'HTTPS://Shop.Example.com:443/search/?b=2&a=1#top', 7);
    const b = fingerprintOf('xss', 'https://shop.example.com/search?a=1&b=2', 7);
    assert.equal(a, b);
    assert.equal(normaliseLocation('https://x.example/'), 'https://x.example');
  });

  it('differs by check, location and asset', () => {
    const base = fingerprintOf('xss', 'https://x.example/a', 1);
    assert.notEqual(base, fingerprintOf('sqli', 'https://x.example/a', 1));
    assert.notEqual(base, fingerprintOf('xss', 'https://x.example/b', 1));
    assert.notEqual(base, fingerprintOf('xss', 'https://x.example/a', 2));
  });

  it('treats non-URL locations as trimmed lowercase text', () => {
    assert.equal(normaliseLocation('  TCP/22 '), 'tcp/22');
  });
});
