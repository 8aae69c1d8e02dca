import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthenticationError, BadRequestError, PermissionDeniedError } from 'cloudflare';
import { presentRecords, proxiedHostnames } from './cloudflare-records.ts';
import { cloudflareFailure } from './cloudflare-transport.ts';

describe('Cloudflare records in presentation form', () => {
  it('renders SRV from data, or from content with or without the priority', () => {
    const records = presentRecords([
      {
        name: '_a._tcp.x.example',
        type: 'SRV',
        ttl: 60,
        data: { priority: 1, weight: 2, port: 3, target: 't.example' },
      },
      { name: '_b._tcp.x.example', type: 'SRV', ttl: 60, priority: 7, content: '8 9 t.example' },
      { name: '_c._tcp.x.example', type: 'SRV', ttl: 60, priority: 7, content: '4 5 6 t.example.' },
      { name: '_d._tcp.x.example', type: 'SRV', ttl: 60, content: 'not an srv' },
    ]);
    assert.deepEqual(
      records.map((r) => r.data),
      ['1 2 3 t.example.', '7 8 9 t.example.', '4 5 6 t.example.'],
    );
  });

  it('keeps a null MX, quotes unquoted TXT, renders URI, and reads TTL 1 as automatic (300 s)', () => {
    const records = presentRecords([
      { name: 'x.example.', type: 'MX', ttl: 1, priority: 0, content: '.' },
      { name: 'x.example', type: 'TXT', ttl: 1, content: 'a\\b' },
      {
        name: '_http.x.example',
        type: 'URI',
        ttl: 60,
        priority: 10,
        data: { weight: 1, target: 'https://x.example/' },
      },
      { name: 'x.example', type: 'TYPE65534', ttl: 60 },
    ]);
    assert.deepEqual(records, [
      { name: 'x.example', type: 'MX', ttl: 300, data: '0 .' },
      { name: 'x.example', type: 'TXT', ttl: 300, data: '"a\\\\b"' },
      { name: '_http.x.example', type: 'URI', ttl: 60, data: '10 1 "https://x.example/"' },
    ]);
  });

  it('names each proxied host once', () => {
    const hostnames = proxiedHostnames([
      { name: 'A.x.example', type: 'A', proxied: true },
      { name: 'a.x.example', type: 'AAAA', proxied: true },
      { name: 'b.x.example', type: 'A', proxied: false },
    ]);
    assert.deepEqual(hostnames, [{ name: 'a.x.example', source: 'cloudflare proxied record' }]);
  });
});

describe('Cloudflare errors as run errors', () => {
  const context = { options: { api_token: 'tok-SECRET-123' }, signal: new AbortController().signal };
  const transport = { deniedReason: () => undefined };
  const kindOf = (err: Error) => (cloudflareFailure(err, context, transport) as { kind?: string }).kind;
  const body = (code: number, message: string) => ({ success: false, errors: [{ code, message }] });

  it('tells a refused token from a token without permission by the error code', () => {
    assert.equal(
      kindOf(new PermissionDeniedError(403, body(10000, 'Authentication error'), undefined, new Headers())),
      'credentials',
    );
    assert.equal(
      kindOf(new PermissionDeniedError(403, body(9109, 'Invalid access token'), undefined, new Headers())),
      'credentials',
    );
    assert.equal(
      kindOf(
        new PermissionDeniedError(
          403,
          body(9109, 'Unauthorized to access requested resource'),
          undefined,
          new Headers(),
        ),
      ),
      'permission',
    );
    const chained = {
      success: false,
      errors: [
        {
          code: 6003,
          message: 'Invalid request headers',
          error_chain: [{ code: 6111, message: 'Invalid format for Authorization header' }],
        },
      ],
    };
    assert.equal(kindOf(new BadRequestError(400, chained, undefined, new Headers())), 'credentials');
    assert.equal(kindOf(new AuthenticationError(401, undefined, 'no body', new Headers())), 'credentials');
    assert.equal(
      kindOf(new BadRequestError(400, body(1004, 'DNS Validation Error'), undefined, new Headers())),
      'provider',
    );
  });

  it('never puts the token in a message', () => {
    const err = cloudflareFailure(new Error('echo tok-SECRET-123'), context, transport);
    assert.equal(err.message, 'Cloudflare: echo [redacted]');
  });
});
