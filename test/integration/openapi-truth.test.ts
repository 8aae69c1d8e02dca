import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../support/harness.ts';

type Document = { info: { description: string }; paths: Record<string, Record<string, unknown>> };

/** A well-formed value for a path parameter: the operation must answer its own "not found", never 1900. */
function fill(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    /uuid/i.test(name) ? '3f0c2a9e-5b1d-4c7e-9a2f-0d4b6e8c1a3f' : /id$/i.test(name) ? 'key_0000000000' : 'a'.repeat(32),
  );
}

describe('the OpenAPI documents describe only what answers', () => {
  let h: Harness;
  let v2Key: string;
  let v3Key: string;
  before(async () => {
    h = await createHarness();
    v2Key = (await h.team('openapi-truth')).key;
    v3Key = (await h.key('openapi-truth', '--v3')).key;
  });
  after(async () => h.close());

  for (const surface of ['v2', 'v3'] as const) {
    it(`no ${surface} operation of the document answers 1900`, async () => {
      const doc = (await h.send('GET', `/rest/${surface}/openapi.json`)).json() as Document;
      const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => [method.toUpperCase(), path] as const),
      );
      assert.ok(surface === 'v3' || operations.length > 40, `${surface} lists ${operations.length} operations`);
      for (const [method, path] of operations) {
        const url = `/rest/${surface}${fill(path)}`;
        const res = await h.send(method, url, {
          key: surface === 'v2' ? v2Key : v3Key,
          ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : {}),
        });
        const body =
          res.body.length > 0 && /json/.test(String(res.headers['content-type']))
            ? (res.json() as Record<string, unknown>)
            : {};
        // 1900 also answers an unknown vulnerability or tag (the spec has no code of its own for
        // them); what must never come back is the router's "no operation".
        const message = String(body['message'] ?? body['detail'] ?? '');
        assert.ok(!message.startsWith('Endpoint unavailable'), `${method} ${url} is not routed: ${res.body}`);
        assert.ok(res.statusCode < 500, `${method} ${url} answered ${res.statusCode}: ${res.body}`);
      }
    });
  }

  it('names the v3 resources of the specification that are not served yet, and each of them answers 404', async () => {
    const doc = (await h.send('GET', '/rest/v3/openapi.json')).json() as Document;
    const spec = ['/ips', '/technologies', '/ports', '/breaches', '/connectors', '/connectors/external-id'];
    for (const path of spec) {
      const served = doc.paths[path] !== undefined;
      assert.equal(
        doc.info.description.includes(`\`${path}\``),
        !served,
        `${path}: served ${served}, named as missing ${!served}`,
      );
      if (!served) {
        const res = await h.send('GET', `/rest/v3${path}`, { key: v3Key });
        assert.equal(res.statusCode, 404);
        assert.equal((res.json() as { type: string }).type, '/problems/not-found');
      }
    }
  });

  it('/docs renders the Markdown of the descriptions as HTML', async () => {
    const docs = await h.send('GET', '/docs');
    assert.equal(docs.statusCode, 200);
    // The v2 description writes `X-Service-Key` in backticks: code, not literal backticks.
    assert.match(docs.body, /<code>X-Service-Key<\/code>/);
    assert.doesNotMatch(docs.body, /`X-Service-Key`/);
    assert.match(docs.body, /<p>Version 2 of the perimeter API/);
    // Markup inside a description is escaped, never passed through.
    assert.doesNotMatch(docs.body, /<script/i);
  });
});
