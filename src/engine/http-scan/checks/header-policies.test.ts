import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import {
  cspPolicies,
  cspScriptWeaknesses,
  effectiveReferrerPolicy,
  hstsMaxAge,
  isFrameable,
} from './header-policies.ts';

const exchange = (headers: Record<string, string | string[]>): HttpExchange => ({
  request: { method: 'GET', url: new URL('http://127.0.0.1/'), headers: [] },
  status: 200,
  headers: Object.entries(headers).flatMap(([name, v]) =>
    (Array.isArray(v) ? v : [v]).map((value) => ({ name, value })),
  ),
  body: '',
  isTruncated: false,
});
const weaknesses = (...csp: string[]): string[] =>
  cspScriptWeaknesses(cspPolicies(exchange({ 'content-security-policy': csp }))).map(
    (w) => `${w.kind} ${w.directive} ${w.source}`,
  );

describe('header policies', () => {
  it('finds unsafe-inline and any-host script sources, in script-src or its default-src fallback', () => {
    assert.deepEqual(weaknesses("default-src 'self'; script-src 'self' 'unsafe-inline'"), [
      "unsafe-inline script-src 'unsafe-inline'",
    ]);
    assert.deepEqual(weaknesses("default-src * 'unsafe-inline'"), [
      "unsafe-inline default-src 'unsafe-inline'",
      'wildcard default-src *',
    ]);
    assert.deepEqual(weaknesses("script-src 'self' https:"), ['wildcard script-src https:']);
    assert.deepEqual(weaknesses("script-src 'self' data:"), ['wildcard script-src data:']);
    // script-src overrides default-src; a directive repeated later is ignored.
    assert.deepEqual(weaknesses("default-src *; script-src 'self'; script-src 'unsafe-inline'"), []);
  });

  it('does not call near misses weak', () => {
    // A nonce or hash makes browsers ignore 'unsafe-inline'; strict-dynamic also ignores host and scheme sources.
    assert.deepEqual(weaknesses("script-src 'self' 'nonce-abc' 'unsafe-inline'"), []);
    assert.deepEqual(weaknesses("script-src 'sha256-AbC=' 'unsafe-inline'"), []);
    assert.deepEqual(weaknesses("script-src 'nonce-abc' 'strict-dynamic' https: 'unsafe-inline'"), []);
    assert.deepEqual(weaknesses("script-src *.example.com 'self'"), []);
    // *, unsafe-inline elsewhere than in the script directive do not let scripts in.
    assert.deepEqual(weaknesses("default-src 'self'; img-src *; style-src 'unsafe-inline'"), []);
    // A policy that does not govern scripts is not judged here.
    assert.deepEqual(weaknesses("frame-ancestors 'none'"), []);
  });

  it('counts a weakness only when every enforced policy has it', () => {
    assert.deepEqual(weaknesses("script-src 'unsafe-inline' 'self'", "script-src 'self'"), []);
    assert.deepEqual(weaknesses("script-src 'unsafe-inline' 'self', frame-ancestors 'none'"), [
      "unsafe-inline script-src 'unsafe-inline'",
    ]);
    assert.deepEqual(weaknesses("script-src 'unsafe-inline' *", "script-src 'unsafe-inline' 'self'"), [
      "unsafe-inline script-src 'unsafe-inline'",
    ]);
  });

  it('reads the HSTS max-age; an invalid one is undefined', () => {
    assert.equal(hstsMaxAge('max-age=31536000; includeSubDomains'), 31_536_000);
    assert.equal(hstsMaxAge('includeSubDomains; max-age="86400"'), 86_400);
    assert.equal(hstsMaxAge('max-age=0'), 0);
    assert.equal(hstsMaxAge('max-age=abc'), undefined);
    assert.equal(hstsMaxAge('includeSubDomains'), undefined);
  });

  it('applies the last Referrer-Policy token a browser knows', () => {
    assert.equal(effectiveReferrerPolicy(['unsafe-url']), 'unsafe-url');
    assert.equal(
      effectiveReferrerPolicy(['unsafe-url, strict-origin-when-cross-origin']),
      'strict-origin-when-cross-origin',
    );
    assert.equal(effectiveReferrerPolicy(['no-referrer', 'Unsafe-URL']), 'unsafe-url');
    assert.equal(effectiveReferrerPolicy(['no-referrer, made-up-policy']), 'no-referrer');
    assert.equal(effectiveReferrerPolicy(['made-up-policy']), undefined);
  });

  it('tells frameable responses: frame-ancestors first, then X-Frame-Options DENY or SAMEORIGIN', () => {
    assert.equal(isFrameable(exchange({})), true);
    assert.equal(isFrameable(exchange({ 'x-frame-options': 'DENY' })), false);
    assert.equal(isFrameable(exchange({ 'x-frame-options': ' sameorigin ' })), false);
    assert.equal(isFrameable(exchange({ 'x-frame-options': 'ALLOW-FROM https://a.example' })), true);
    assert.equal(isFrameable(exchange({ 'content-security-policy': "frame-ancestors 'self'" })), false);
    assert.equal(
      isFrameable(exchange({ 'content-security-policy': 'frame-ancestors *', 'x-frame-options': 'DENY' })),
      true,
    );
    assert.equal(
      isFrameable(exchange({ 'content-security-policy': "default-src 'self'", 'x-frame-options': 'DENY' })),
      false,
    );
  });
});
