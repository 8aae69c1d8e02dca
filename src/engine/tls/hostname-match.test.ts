import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesDnsIdentifier, matchesHostname } from './hostname-match.ts';

describe('matchesDnsIdentifier (RFC 6125)', () => {
  it('matches equal names ignoring case and a final dot', () => {
    assert.equal(matchesDnsIdentifier('WWW.Example.com.', 'www.example.COM'), true);
    assert.equal(matchesDnsIdentifier('www.example.com', 'example.com'), false);
  });
  it('lets a left-most wildcard stand for exactly one label', () => {
    assert.equal(matchesDnsIdentifier('*.example.com', 'www.example.com'), true);
    assert.equal(matchesDnsIdentifier('*.example.com', 'a.b.example.com'), false);
    assert.equal(matchesDnsIdentifier('*.example.com', 'example.com'), false);
  });
  it('refuses wildcards elsewhere, partial wildcards and wildcards over one label', () => {
    assert.equal(matchesDnsIdentifier('www.*.com', 'www.example.com'), false);
    assert.equal(matchesDnsIdentifier('w*.example.com', 'www.example.com'), false);
    assert.equal(matchesDnsIdentifier('*.com', 'example.com'), false);
    assert.equal(matchesDnsIdentifier('*', 'localhost'), false);
  });
});

describe('matchesHostname', () => {
  it('uses the SAN DNS names and ignores the CN when there are any', () => {
    assert.equal(matchesHostname({ dnsNames: ['a.test'], ipAddresses: [], commonName: 'b.test' }, 'b.test'), false);
    assert.equal(matchesHostname({ dnsNames: ['a.test'], ipAddresses: [], commonName: 'b.test' }, 'a.test'), true);
  });
  it('falls back to the CN only without SAN entries', () => {
    assert.equal(matchesHostname({ dnsNames: [], ipAddresses: [], commonName: 'b.test' }, 'b.test'), true);
    assert.equal(matchesHostname({ dnsNames: [], ipAddresses: ['127.0.0.1'], commonName: 'b.test' }, 'b.test'), false);
  });
  it('matches IP literals against SAN IP entries only, IPv6 in any spelling', () => {
    assert.equal(
      matchesHostname({ dnsNames: ['127.0.0.1'], ipAddresses: [], commonName: undefined }, '127.0.0.1'),
      false,
    );
    assert.equal(
      matchesHostname({ dnsNames: [], ipAddresses: ['127.0.0.1'], commonName: undefined }, '127.0.0.1'),
      true,
    );
    assert.equal(
      matchesHostname({ dnsNames: [], ipAddresses: ['0:0:0:0:0:0:0:1'], commonName: undefined }, '::1'),
      true,
    );
  });
});
