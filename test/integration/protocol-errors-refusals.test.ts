// Requests no operation can read, answered through the catalogue: every method (QUERY, CONNECT,
// the HTTP/2 preface) and every refusal of Node or Fastify (bare CRs, folded headers, framing,
// chunk limits, a missing Host, Expect, half-closed heads, bad media types) answers in the shape of
// its surface and is counted in /metrics. The shared server and assertions are in
// test/support/protocol-errors-fixture.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testStore, v2Error, type Harness } from '../support/harness.ts';
import {
  assertCleanClose,
  assertV2Refusal,
  exchangeSegments,
  problem,
  ProtocolFixture,
} from '../support/protocol-errors-fixture.ts';
import { exchangeRaw, type RawResponse } from '../support/raw-http.ts';

describe(`requests no operation can read answer through the catalogue: methods and refusals of Node or Fastify (${testStore})`, () => {
  const fx = new ProtocolFixture();
  let h: Harness;
  let key: string;
  let served: ProtocolFixture['served'];

  before(async () => {
    await fx.open();
    ({ h, key, served } = fx);
  });
  after(() => fx.close());

  describe('every method and every refusal of Node or Fastify answers through the catalogue', () => {
    const problemOf = (res: RawResponse) => {
      assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/, res.raw);
      return JSON.parse(res.body) as Record<string, unknown>;
    };

    it('QUERY without a Content-Type answers as any method no operation takes: 1900 on v2, 405 / 404 problems on v3', async () => {
      let res = await h.send('QUERY', '/rest/v2/assets/', { key });
      assert.equal(res.statusCode, 404, res.body);
      assert.deepEqual(res.json(), v2Error(1900, 'Endpoint unavailable: no operation QUERY /rest/v2/assets/'));
      const v3Key = (await h.key('protocol', '--v3')).key;
      res = await h.send('QUERY', '/rest/v3/ports', { key: v3Key });
      assert.equal(res.statusCode, 405, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(res.json(), {
        type: '/problems/method-not-allowed',
        title: 'Method Not Allowed',
        status: 405,
        detail: 'Method QUERY is not allowed on /rest/v3/ports',
        instance: '/rest/v3/ports',
      });
      res = await h.send('QUERY', '/rest/v3/nothing', { key: v3Key });
      assert.equal(res.statusCode, 404, res.body);
      assert.deepEqual(res.json(), {
        type: '/problems/not-found',
        title: 'Not Found',
        status: 404,
        detail: 'No operation at /rest/v3/nothing',
        instance: '/rest/v3/nothing',
      });
      // Over HTTP too, with the connection kept.
      const raw = await exchangeRaw(
        served.port,
        `QUERY /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${key}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(raw.status, 404);
      assert.deepEqual(
        JSON.parse(raw.body),
        v2Error(1900, 'Endpoint unavailable: no operation QUERY /rest/v2/assets/'),
      );
    });

    it('CONNECT answers 1900 (v2 shape, a v3 problem for a /rest/v3 target), then closes cleanly', async () => {
      let res = await exchangeRaw(served.port, 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n');
      assert.equal(res.status, 404, res.raw);
      assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        JSON.parse(res.body),
        v2Error(1900, 'Endpoint unavailable: CONNECT is not served (this server is not a proxy)'),
      );
      assertCleanClose(res);
      res = await exchangeRaw(served.port, 'CONNECT /rest/v3/ports HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal(res.status, 404, res.raw);
      assert.deepEqual(
        problemOf(res),
        problem(
          404,
          'Not Found',
          1900,
          'Endpoint unavailable: CONNECT is not served (this server is not a proxy)',
          '/rest/v3',
        ),
      );
      assertCleanClose(res);
    });

    it('CONNECT after a request still being answered on the connection is answered after it', async () => {
      const res = await exchangeRaw(
        served.port,
        'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nCONNECT example.test:443 HTTP/1.1\r\nHost: example.test\r\n\r\n',
      );
      const responses = res.raw.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 2, res.raw);
      assert.match(responses[0]!, /^HTTP\/1\.1 200 /);
      assert.match(responses[1]!, /^HTTP\/1\.1 404 Not Found\r\n[^]*Connection: close\r\n\r\n\{"code":1900,/);
      assert.equal(res.errorCode, undefined);
    });

    const cases = [
      {
        name: 'the HTTP/2 preface (PRI)',
        request: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
        status: 404,
        body: v2Error(1900, 'Endpoint unavailable: HTTP/2 is not served; use HTTP/1.1'),
      },
      {
        name: 'a header line ending in CR alone',
        request: 'GET /rest/v2/assets/ HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n',
        status: 400,
        body: v2Error(1051, 'Request malformed: a line of the request head does not end in CRLF'),
      },
      {
        name: 'a request line ending in CR alone',
        request: 'GET /rest/v2/assets/ HTTP/1.1\rHost: x\r\n\r\n',
        status: 400,
        body: v2Error(1051, 'Request malformed: a line of the request head does not end in CRLF'),
      },
      {
        name: 'a first header line folded (leading space)',
        request: 'GET /rest/v2/assets/ HTTP/1.1\r\n Host: x\r\n\r\n',
        status: 400,
        body: v2Error(1051, 'Request malformed: a header is not a valid HTTP header line'),
      },
      {
        name: 'a space inside the request target',
        request: 'GET /rest/v2/as sets/ HTTP/1.1\r\nHost: x\r\n\r\n',
        status: 404,
        body: v2Error(1900, 'Endpoint unavailable: the request line is not an HTTP/1.1 request line'),
      },
      {
        name: 'an unknown HTTP version',
        request: 'GET /rest/v2/assets/ HTTP/1.7\r\nHost: x\r\n\r\n',
        status: 404,
        body: v2Error(1900, 'Endpoint unavailable: the request line is not an HTTP/1.1 request line'),
      },
      {
        name: 'Content-Length and Transfer-Encoding together',
        request:
          'POST /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        status: 400,
        body: v2Error(
          1051,
          'Request body malformed: its length is not given by one valid Content-Length or Transfer-Encoding',
        ),
      },
      {
        name: 'a chunk size over 64 bits',
        request:
          'POST /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n',
        status: 400,
        body: v2Error(1051, 'Request body malformed: broken chunked framing'),
      },
      {
        name: 'chunk extensions over the limit',
        request: `POST /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;${'a'.repeat(20_000)}\r\nx\r\n0\r\n\r\n`,
        status: 413,
        body: v2Error(1052, 'Request body too large: its chunk extensions exceed the limit'),
      },
      {
        name: 'an HTTP/1.1 request without Host',
        request: 'GET /rest/v2/assets/ HTTP/1.1\r\n\r\n',
        status: 400,
        body: v2Error(1051, 'Request malformed: an HTTP/1.1 request must carry a Host header'),
      },
      {
        name: 'an Expect other than 100-continue',
        request: `POST /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${'0'.repeat(32)}\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}`,
        status: 400,
        body: v2Error(1051, 'Request malformed: the only expectation this server meets is Expect: 100-continue'),
      },
    ];
    for (const c of cases) {
      it(`${c.name} answers ${c.status} with code ${String(c.body['code'])}, then closes cleanly`, async () => {
        assertV2Refusal(await exchangeRaw(served.port, c.request), c);
      });
    }

    it('a client that closes its side in the middle of a head gets 1051, in the shape of its surface', async () => {
      let res = await exchangeSegments(served.port, ['GET /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\n'], {
        isHalfClosed: true,
      });
      assert.equal(res.status, 400, res.raw);
      assert.deepEqual(
        JSON.parse(res.body),
        v2Error(1051, 'Request incomplete: the connection was closed before the request ended'),
      );
      assert.equal(res.errorCode, undefined);
      res = await exchangeSegments(served.port, ['GET /rest/v3/ports HTTP/1.1\r\nHost: x\r\n'], { isHalfClosed: true });
      assert.equal(res.status, 400, res.raw);
      assert.deepEqual(
        problemOf(res),
        problem(
          400,
          'Bad Request',
          1051,
          'Request incomplete: the connection was closed before the request ended',
          '/rest/v3',
        ),
      );
    });

    it('bytes after a request that asked to close are dropped: that request is answered, nothing else', async () => {
      const res = await exchangeRaw(
        served.port,
        'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
      );
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.raw.split(/(?=HTTP\/1\.1 )/).length, 1, res.raw);
      assert.equal(res.errorCode, undefined);
      assert.equal(res.isEndedByServer, true);
    });

    it('counts CONNECT and Expect refusals in /metrics, and logs nothing at warn or above', async () => {
      const metrics = await exchangeRaw(served.port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.match(metrics.body, /perimeter_http_parse_errors_total\{code="CONNECT"\} [1-9]/);
      assert.match(metrics.body, /perimeter_http_parse_errors_total\{code="EXPECT"\} [1-9]/);
      assert.match(metrics.body, /perimeter_http_parse_errors_total\{code="HPE_PAUSED_H2_UPGRADE"\} [1-9]/);
      assert.deepEqual(
        served.lines.filter((l) => l.level >= 40),
        [],
      );
    });

    it('a Content-Type that is no media type answers 1051 through the catalogue', async () => {
      const res = await h.send('POST', '/rest/v2/assets/', {
        key,
        headers: { 'content-type': '/;;' },
        body: '{"name":"example.test"}',
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: its Content-Type is not a valid media type'));
    });
  });
});
