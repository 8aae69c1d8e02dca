// Requests no operation can read, answered through the catalogue: the router's own errors
// (malformed percent-encoding, over-long path parameters) answer with catalogue codes, without
// echoing the path, and are counted as unmatched routes. The shared server and helpers are in
// test/support/protocol-errors-fixture.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testStore, v2Error, type Harness } from '../support/harness.ts';
import { problem, ProtocolFixture } from '../support/protocol-errors-fixture.ts';

describe(`requests no operation can read answer through the catalogue: the router's own errors (${testStore})`, () => {
  const fx = new ProtocolFixture();
  let h: Harness;
  let key: string;

  before(async () => {
    await fx.open();
    ({ h, key } = fx);
  });
  after(() => fx.close());

  describe("the router's own errors", () => {
    it('answers 1900 for malformed percent-encoding in the path, without echoing the path', async () => {
      for (const url of ['/rest/v2/%ZZ/', '/rest/v2/assets/%E0%A4%A/subdomains/', '/%ZZ<script>']) {
        const res = await h.send('GET', url, { key });
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), v2Error(1900, 'Endpoint unavailable: the path holds malformed percent-encoding'));
        assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
        assert.doesNotMatch(res.body, /%ZZ|%A\/|script/);
      }
    });

    it('counts those answers in /metrics as unmatched routes', async () => {
      const count = async () => {
        const body = (await h.send('GET', '/metrics')).body;
        return Number(
          /perimeter_http_requests_total\{method="GET",route="unmatched",status="404"\} (\d+)/.exec(body)?.[1] ?? 0,
        );
      };
      const before = await count();
      for (let i = 0; i < 3; i++) await h.send('GET', '/rest/v2/%ZZ/', { key });
      assert.equal(await count(), before + 3);
    });

    it('answers a v3 problem for malformed percent-encoding under /rest/v3, the instance not echoing it', async () => {
      const res = await h.send('GET', '/rest/v3/%ZZ');
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(
        res.json(),
        problem(404, 'Not Found', 1900, 'Endpoint unavailable: the path holds malformed percent-encoding', '/rest/v3'),
      );
    });

    it("answers an over-long path parameter with the parameter's own malformed code, after authentication", async () => {
      const long = 'a'.repeat(300);
      const cases: Array<[string, string, Record<string, unknown>]> = [
        [
          'GET',
          `/rest/v2/assets/${long}/subdomains/`,
          v2Error(2011, 'Domain token malformed: a token is 32 lowercase hexadecimal characters', ['token']),
        ],
        [
          'GET',
          `/rest/v2/domains/${long}/settings/`,
          v2Error(2011, 'Domain token malformed: a token is 32 lowercase hexadecimal characters', ['token']),
        ],
        [
          'GET',
          `/rest/v2/scans/${long}/`,
          v2Error(2601, 'Scan profile token malformed: a token is 32 lowercase hexadecimal characters', [
            'scanProfileToken',
          ]),
        ],
        [
          'GET',
          `/rest/v2/zone/lookup/${long}/`,
          v2Error(6001, 'Lookup job UUID malformed: expected a UUID', ['lookupJobUUID']),
        ],
        [
          'GET',
          `/rest/v2/vulnerabilities/uuid/${long}/`,
          v2Error(4111, 'Vulnerability UUID malformed: expected a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e', [
            'uuid',
          ]),
        ],
        [
          'DELETE',
          `/rest/v2/groups/${long}/`,
          v2Error(9001, 'Group token malformed: a token is 32 lowercase hexadecimal characters', ['groupToken']),
        ],
      ];
      for (const [method, url, body] of cases) {
        const res = await h.send(method, url, { key });
        assert.equal(res.statusCode, 400, url);
        assert.deepEqual(res.json(), body, url);
      }
      assert.equal((await h.send('GET', `/rest/v2/scans/${long}/`)).json().code, 1001);
    });

    it("answers a parameter over the router's limit (16 KiB, past Node's header limit) with its malformed code too", async () => {
      const long = 'a'.repeat(17_000);
      let res = await h.send('GET', `/rest/v2/assets/${long}/subdomains/`, { key });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v2Error(2011, 'Domain token malformed: longer than 16384 characters', ['token']));
      res = await h.send('DELETE', `/rest/v2/groups/${'0'.repeat(32)}/assetpatterns/${long}/`, { key });
      assert.deepEqual(
        res.json(),
        v2Error(9011, 'Asset pattern token malformed: longer than 16384 characters', ['assetPatternToken']),
      );
      res = await h.send('GET', `/rest/v2/nothing/${long}/`, { key });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 1900);
    });
  });
});
