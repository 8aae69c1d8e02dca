import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OidcError } from '../../core/accounts/sso.types.ts';
import { EgressGuard } from '../net/egress-guard.ts';
import { createOidcClient } from './oidc-client.ts';

const resolver = { resolveAddresses: async () => [] };

describe('OpenID client', () => {
  let server: http.Server;
  let issuer = '';
  let requests = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      requests++;
      if (req.url === '/slow/.well-known/openid-configuration') return; // never answers
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: 'http://elsewhere.example', authorization_endpoint: 'x', token_endpoint: 'y' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const provider = (path = '') => ({ issuer: `${issuer}${path}`, clientId: 'c', clientSecret: 's' });

  it('reads discovery through the egress guard: a denied address is refused before any request', async () => {
    const client = createOidcClient({ guard: new EgressGuard([]), resolver });
    const before = requests;
    await assert.rejects(client.checkProvider(provider()), (err: unknown) => {
      assert.ok(err instanceof OidcError);
      assert.equal(err.kind, 'unreachable');
      assert.match(err.message, /denied by egress guard: 127\.0\.0\.1 is in loopback range/);
      return true;
    });
    assert.equal(requests, before);
  });

  it('refuses a discovery document of another issuer, and gives up on a silent provider at its time limit', async () => {
    const client = createOidcClient({ guard: new EgressGuard(['127.0.0.0/8']), resolver, timeoutSeconds: 1 });
    await assert.rejects(client.checkProvider(provider()), (err: unknown) => {
      assert.ok(err instanceof OidcError && err.kind === 'unreachable');
      assert.match(err.message, /discovered metadata issuer does not match the expected issuer/);
      return true;
    });
    const started = Date.now();
    await assert.rejects(client.checkProvider(provider('/slow')), (err: unknown) => err instanceof OidcError);
    assert.ok(Date.now() - started < 5000, 'the time limit ends the request');
  });
});
