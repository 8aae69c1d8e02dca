import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { plans } from '../../src/core/teams/plans.ts';
import { allRoutes } from '../../src/http/routes.ts';
import type { RouteDef } from '../../src/http/route.ts';
import { createHarness, v2Error, type Harness, type TestKey } from '../support/harness.ts';

/**
 * The shared security suite: every route of both surfaces, with no key, a malformed key, an
 * unknown key, a revoked key, a key of the other surface, a key without the permission, a
 * team whose plan lacks the endpoint group, and (v2) every signing failure.
 */
function concreteUrl(def: RouteDef): string {
  return `/rest/${def.surface}${def.path.replace(/\{\w+\}/g, '0123456789abcdef0123456789abcdef')}`;
}

const unknownKey = 'ffffffffffffffffffffffffffffffff';

describe('authentication and access, on every route', () => {
  let h: Harness;
  let v2: TestKey;
  let v3: TestKey;
  let signed: TestKey;
  let revoked: TestKey;
  const scoped = new Map<string, TestKey>();
  let starter: TestKey;

  before(async () => {
    h = await createHarness();
    v2 = await h.team('auth');
    v3 = await h.key('auth', '--v3');
    signed = await h.key('auth', '--signing');
    revoked = await h.key('auth');
    await h.admin('key', 'revoke', revoked.key);
    for (const group of new Set(allRoutes().map((r) => r.group))) {
      const other = group === 'assets' ? 'vulnerabilities' : 'assets';
      scoped.set(group, await h.key('auth', '--permission', other));
    }
    starter = await h.team('starter-team', { plan: 'starter' });
  });
  after(async () => h.close());

  for (const def of allRoutes()) {
    const url = concreteUrl(def);
    const label = `${def.method} ${def.surface} ${def.path}`;
    describe(label, () => {
      if (def.surface === 'v2') {
        it('answers 1001 without a key', async () => {
          const res = await h.send(def.method, url);
          assert.equal(res.statusCode, 401);
          assert.deepEqual(
            res.json(),
            v2Error(1001, 'API key missing: send it as X-Service-Key, HTTP Basic user name or URL user-info'),
          );
        });
        it('answers 1002 for a malformed key', async () => {
          const res = await h.send(def.method, url, { key: 'not-a-key' });
          assert.equal(res.statusCode, 401);
          assert.deepEqual(
            res.json(),
            v2Error(1002, 'API key malformed: a key is 32 lowercase hexadecimal characters'),
          );
        });
        it('answers 1003 for an unknown key, a revoked key and a v3 key alike', async () => {
          for (const key of [unknownKey, revoked.key, v3.key]) {
            const res = await h.send(def.method, url, { key });
            assert.equal(res.statusCode, 401);
            assert.deepEqual(res.json(), v2Error(1003, 'API key invalid'));
          }
        });
        it('answers 1003 for a signing key without a signature, with a wrong one, or an old timestamp', async () => {
          let res = await h.send(def.method, url, { key: signed.key });
          assert.deepEqual(
            res.json(),
            v2Error(1003, 'This API key requires signed requests: send X-Service-Signature and X-Service-Timestamp'),
          );
          res = await h.send(def.method, url, { key: signed.key, secret: Buffer.alloc(32, 7).toString('base64') });
          assert.deepEqual(res.json(), v2Error(1003, 'Request signature invalid'));
          res = await h.send(def.method, url, {
            key: signed.key,
            secret: signed.secret!,
            timestamp: Math.floor(Date.now() / 1000) - 11,
          });
          assert.deepEqual(
            res.json(),
            v2Error(1003, 'Request timestamp outside the accepted window (10 s before to 5 s after the server time)'),
          );
          res = await h.send(def.method, url, {
            key: signed.key,
            secret: signed.secret!,
            timestamp: Math.floor(Date.now() / 1000) + 7,
          });
          assert.equal(res.json().code, 1003);
        });
        it('passes authentication with a good signature', async () => {
          const res = await h.send(def.method, url, { key: signed.key, secret: signed.secret! });
          assert.notEqual(res.statusCode, 401);
          assert.notEqual(res.statusCode, 403);
        });
        it('answers 1009 for a key without the permission', async () => {
          const res = await h.send(def.method, url, { key: scoped.get(def.group)!.key });
          assert.equal(res.statusCode, 403);
          assert.deepEqual(res.json(), v2Error(1009, `This API key cannot access the ${def.group} endpoints`));
        });
        if (!(plans.starter.groups as readonly string[]).includes(def.group)) {
          it('answers 1009 for a team whose plan lacks the endpoint group', async () => {
            const res = await h.send(def.method, url, { key: starter.key });
            assert.deepEqual(res.json(), v2Error(1009, `This API key cannot access the ${def.group} endpoints`));
          });
        }
      } else {
        it('answers a 401 problem without a key, with a malformed, unknown or v2 key', async () => {
          for (const key of [undefined, 'not-a-key', unknownKey, v2.key]) {
            const res = await h.send(def.method, url, key === undefined ? {} : { key });
            assert.equal(res.statusCode, 401);
            assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
          }
        });
      }
    });
  }
});

describe('the ways of giving a v2 key', () => {
  let h: Harness;
  let key: TestKey;
  before(async () => {
    h = await createHarness();
    key = await h.team('ways');
  });
  after(async () => h.close());

  it('accepts X-Service-Key, HTTP Basic and URL user-info (Basic with empty password)', async () => {
    const ways: Array<Record<string, string>> = [
      { 'x-service-key': key.key },
      { authorization: `Basic ${Buffer.from(`${key.key}:`).toString('base64')}` },
      { authorization: `Basic ${Buffer.from(key.key).toString('base64')}` },
    ];
    for (const headers of ways) {
      const res = await h.send('GET', '/rest/v2/assets/', { headers });
      assert.equal(res.statusCode, 200, JSON.stringify(headers));
    }
  });

  it('accepts the same key twice but answers 1002 for two different keys', async () => {
    const basic = (k: string) => `Basic ${Buffer.from(`${k}:`).toString('base64')}`;
    let res = await h.send('GET', '/rest/v2/assets/', {
      headers: { 'x-service-key': key.key, authorization: basic(key.key) },
    });
    assert.equal(res.statusCode, 200);
    res = await h.send('GET', '/rest/v2/assets/', {
      headers: { 'x-service-key': key.key, authorization: basic(unknownKey) },
    });
    assert.deepEqual(res.json(), v2Error(1002, 'API key malformed: two different keys were given'));
  });

  it('answers 1002 for an Authorization header that is not Basic', async () => {
    const res = await h.send('GET', '/rest/v2/assets/', { headers: { authorization: 'Token abc' } });
    assert.deepEqual(
      res.json(),
      v2Error(1002, 'API key malformed: Authorization must be Basic with the key as user name'),
    );
  });

  it('signs POST bodies byte for byte', async () => {
    const signed = await h.key('ways', '--signing');
    let res = await h.send('POST', '/rest/v2/assets/', {
      key: signed.key,
      secret: signed.secret!,
      body: { name: 'signed.example' },
    });
    assert.equal(res.statusCode, 200);
    res = await h.send('POST', '/rest/v2/assets/?x=1', {
      key: signed.key,
      secret: signed.secret!,
      body: { name: 'signed2.example' },
    });
    assert.equal(res.statusCode, 200, 'signed over path and query');
    res = await h.send('POST', '/rest/v2/assets/?x=1', {
      key: signed.key,
      secret: signed.secret!,
      body: { name: 'signed3.example' },
      signedPath: '/v2/assets/',
    });
    assert.deepEqual(res.json(), v2Error(1003, 'Request signature invalid'), 'the query string is signed');
    res = await h.send('POST', '/rest/v2/assets/', {
      key: signed.key,
      secret: signed.secret!,
      body: { name: 'signed4.example' },
      signedPath: '/v2/assets/',
    });
    assert.equal(res.statusCode, 200, 'a request without a query is signed over its path');
  });
});

describe('v3 authentication', () => {
  let h: Harness;
  let v3: TestKey;
  before(async () => {
    h = await createHarness();
    await h.team('v3team');
    v3 = await h.key('v3team', '--v3');
  });
  after(async () => h.close());

  it('accepts the raw key and Bearer, and answers a problem for an unknown path', async () => {
    for (const authorization of [v3.key, `Bearer ${v3.key}`]) {
      const res = await h.send('GET', '/rest/v3/nothing-here', { headers: { authorization } });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), {
        type: '/problems/not-found',
        title: 'Not Found',
        status: 404,
        detail: 'No operation at /rest/v3/nothing-here',
        instance: '/rest/v3/nothing-here',
      });
    }
  });

  it('refuses a v2 key with a 401 problem', async () => {
    const v2 = await h.key('v3team');
    const res = await h.send('GET', '/rest/v3/nothing-here', { headers: { authorization: v2.key } });
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(res.json(), {
      type: '/problems/1003',
      title: 'Unauthorized',
      status: 401,
      detail: 'API key invalid',
      instance: '/rest/v3/nothing-here',
    });
  });
});
