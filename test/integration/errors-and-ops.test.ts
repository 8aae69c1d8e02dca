import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

describe('routing errors', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await createHarness();
    key = (await h.team('routing')).key;
  });
  after(async () => h.close());

  it('answers 1999 (410) for anything under /rest/v1', async () => {
    for (const [method, url] of [
      ['GET', '/rest/v1/domains/'],
      ['POST', '/rest/v1/anything/at/all'],
      ['GET', '/rest/v1'],
    ] as const) {
      const res = await h.send(method, url);
      assert.equal(res.statusCode, 410);
      assert.deepEqual(
        res.json(),
        v2Error(1999, 'Endpoint discontinued: version 1 of the API has been retired; use /rest/v2 or /rest/v3'),
      );
    }
  });

  it('answers 1900 (404) for an unknown path or a wrong method on v2', async () => {
    let res = await h.send('GET', '/rest/v2/nope/', { key });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), v2Error(1900, 'Endpoint unavailable: no operation GET /rest/v2/nope/'));
    res = await h.send('PATCH', '/rest/v2/assets/', { key });
    assert.deepEqual(res.json(), v2Error(1900, 'Endpoint unavailable: no operation PATCH /rest/v2/assets/'));
  });

  it('routes v2 paths with and without the trailing slash', async () => {
    assert.equal((await h.send('GET', '/rest/v2/assets', { key })).statusCode, 200);
    assert.equal((await h.send('GET', '/rest/v2/assets/', { key })).statusCode, 200);
  });

  it('answers a v3 405 problem for a wrong method on a known path', async () => {
    const v3 = await h.key('routing', '--v3');
    const res = await h.send('DELETE', '/rest/v3/openapi.json', { key: v3.key });
    assert.ok([404, 405].includes(res.statusCode));
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  });

  it('answers 1052 (413) for a body over the limit', async () => {
    const res = await h.send('POST', '/rest/v2/assets/', {
      key,
      body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), v2Error(1052, 'Request body too large for this operation'));
  });

  it('never answers a stack trace: an unexpected failure is 1910 with the request id', async () => {
    const original = h.runtime.store.assets.renderPage;
    h.runtime.store.assets.renderPage = async () => {
      throw new Error('disk on fire');
    };
    try {
      const res = await h.send('GET', '/rest/v2/assets/', { key, headers: { 'x-request-id': 'req-123' } });
      assert.equal(res.statusCode, 500);
      assert.equal(res.headers['x-request-id'], 'req-123');
      assert.deepEqual(res.json(), v2Error(1910, 'Technical issue while processing the request (request id req-123)'));
      assert.doesNotMatch(res.body, /disk on fire|at /);
    } finally {
      h.runtime.store.assets.renderPage = original;
    }
    const metrics = (await h.send('GET', '/metrics')).body;
    assert.match(
      metrics,
      /^perimeter_http_server_faults_total\{method="GET",route="\/rest\/v2\/assets\/",status="500"\} 1$/m,
    );
  });
});

describe('operations endpoints', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  it('answers /healthz and /readyz', async () => {
    assert.deepEqual((await h.send('GET', '/healthz')).json(), { status: 'ok' });
    const ready = await h.send('GET', '/readyz');
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
  });

  it('exposes Prometheus metrics with request counts', async () => {
    await h.send('GET', '/healthz');
    const res = await h.send('GET', '/metrics');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /perimeter_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    assert.match(res.body, /perimeter_http_request_duration_seconds_bucket/);
  });

  it('serves both OpenAPI 3.1 documents without a key, and the docs page', async () => {
    for (const surface of ['v2', 'v3']) {
      const res = await h.send('GET', `/rest/${surface}/openapi.json`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().openapi, '3.1.0');
    }
    const v2 = (await h.send('GET', '/rest/v2/openapi.json')).json();
    assert.ok(v2.paths['/assets/'].get);
    assert.ok(v2.paths['/domains/{domainToken}/settings/'].put.responses['400'].description.includes('2422'));
    const docs = await h.send('GET', '/docs');
    assert.equal(docs.statusCode, 200);
    assert.match(docs.headers['content-type'] as string, /text\/html/);
    assert.match(docs.body, /id="error-2422"/);
  });
});
