// Requests no operation can read, answered through the catalogue: errors of the HTTP parser answer
// a catalogue body (v2 shape, or a v3 problem under /rest/v3) with Connection: close and no reset,
// also when a v3 head arrives in several TCP segments. The shared server and assertions are in
// test/support/protocol-errors-fixture.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testStore, v2Error } from '../support/harness.ts';
import {
  assertCleanClose,
  assertV2Refusal,
  exchangeSegments,
  problem,
  ProtocolFixture,
} from '../support/protocol-errors-fixture.ts';
import { exchangeRaw } from '../support/raw-http.ts';

describe(`requests no operation can read answer through the catalogue: the HTTP parser (${testStore})`, () => {
  const fx = new ProtocolFixture();
  let served: ProtocolFixture['served'];

  before(async () => {
    await fx.open();
    ({ served } = fx);
  });
  after(() => fx.close());

  describe('errors of the HTTP parser: a catalogue body, Connection: close, no reset', () => {
    const v2Cases = [
      {
        name: 'an unknown method',
        request: 'FOO /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\n\r\n',
        status: 404,
        body: v2Error(1900, 'Endpoint unavailable: unknown HTTP method'),
      },
      {
        name: 'bad bytes in the URL',
        request: 'GET /rest/v2/as\u0001sets/ HTTP/1.1\r\nHost: x\r\n\r\n',
        status: 404,
        body: v2Error(1900, 'Endpoint unavailable: the request target holds characters a URL path may not hold'),
      },
      {
        name: 'broken chunked framing',
        request: `POST /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${'0'.repeat(32)}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n`,
        status: 400,
        body: v2Error(1051, 'Request body malformed: broken chunked framing'),
      },
      {
        name: 'two Content-Length headers',
        request: 'POST /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}',
        status: 400,
        body: v2Error(
          1051,
          'Request body malformed: its length is not given by one valid Content-Length or Transfer-Encoding',
        ),
      },
      {
        name: 'a NUL byte in a header',
        request: 'GET /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: a\u0000b\r\n\r\n',
        status: 400,
        body: v2Error(1051, 'Request malformed: a header is not a valid HTTP header line'),
      },
      {
        name: 'headers too large',
        request: `GET /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
        status: 413,
        body: v2Error(1052, 'Request too large: the request line and headers exceed 16 KiB'),
      },
      {
        name: 'a path parameter longer than Node reads',
        request: `GET /rest/v2/assets/${'a'.repeat(20_000)}/subdomains/ HTTP/1.1\r\nHost: x\r\n\r\n`,
        status: 413,
        body: v2Error(1052, 'Request too large: the request line and headers exceed 16 KiB'),
      },
      {
        name: 'a request line that is not HTTP',
        request: 'hello there\r\n\r\n',
        status: 404,
        body: v2Error(1900, 'Endpoint unavailable: unknown HTTP method'),
      },
    ];
    for (const c of v2Cases) {
      it(`${c.name} answers ${c.status} with code ${String(c.body['code'])} (v2 shape)`, async () => {
        assertV2Refusal(await exchangeRaw(served.port, c.request), c);
      });
    }

    it('answers a problem body on a /rest/v3 path', async () => {
      let res = await exchangeRaw(served.port, 'FOO /rest/v3/ips HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal(res.status, 404);
      assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.deepEqual(
        JSON.parse(res.body),
        problem(404, 'Not Found', 1900, 'Endpoint unavailable: unknown HTTP method', '/rest/v3'),
      );
      assertCleanClose(res);
      res = await exchangeRaw(
        served.port,
        'POST /rest/v3/connectors HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nnot-hex\r\n',
      );
      assert.equal(res.status, 400);
      assert.deepEqual(
        JSON.parse(res.body),
        problem(400, 'Bad Request', 1051, 'Request body malformed: broken chunked framing', '/rest/v3'),
      );
      assertCleanClose(res);
    });

    it('answers the error after a good request on a keep-alive connection, then closes it cleanly', async () => {
      const res = await exchangeRaw(served.port, [
        'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nBREW /rest/v2/assets/ HTTP/1.1\r\nHost: x\r\n\r\n',
      ]);
      assert.equal(res.status, 200);
      const responses = res.raw.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 3, res.raw);
      assert.match(responses[2]!, /^HTTP\/1\.1 404 Not Found\r\n[^]*Connection: close\r\n\r\n\{"code":1900,/);
      assert.equal(res.errorCode, undefined);
      assert.equal(res.isEndedByServer, true);
    });

    it('counts parser refusals in /metrics, and logs them below warn', async () => {
      const metrics = await exchangeRaw(served.port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.match(metrics.body, /perimeter_http_parse_errors_total\{code="HPE_INVALID_METHOD"\} [1-9]/);
      assert.match(metrics.body, /perimeter_http_parse_errors_total\{code="HPE_HEADER_OVERFLOW"\} [1-9]/);
      assert.deepEqual(
        served.lines.filter((l) => l.level >= 40),
        [],
      );
    });
  });

  describe('a v3 head that arrives in several TCP segments keeps the v3 shape', () => {
    it('a malformed header line sent after the request line', async () => {
      const res = await exchangeSegments(served.port, [
        'GET /rest/v3/ports HTTP/1.1\r\n',
        'Host: x\r\n',
        'this is not a header\r\n\r\n',
      ]);
      assert.equal(res.status, 400, res.raw);
      assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.deepEqual(
        JSON.parse(res.body),
        problem(400, 'Bad Request', 1051, 'Request malformed: a header is not a valid HTTP header line', '/rest/v3'),
      );
      assertCleanClose(res);
    });

    it('a request line itself split inside the path', async () => {
      const res = await exchangeSegments(served.port, [
        'GET /rest/v',
        '3/ports HTTP/1.1\r\nHost: x\r\n',
        'X-A: a\u0000b\r\n\r\n',
      ]);
      assert.equal(res.status, 400, res.raw);
      assert.deepEqual(
        JSON.parse(res.body),
        problem(400, 'Bad Request', 1051, 'Request malformed: a header is not a valid HTTP header line', '/rest/v3'),
      );
    });

    it('headers over 16 KiB sent in several segments', async () => {
      const res = await exchangeSegments(served.port, [
        'GET /rest/v3/ports HTTP/1.1\r\nHost: x\r\n',
        `X-Padding: ${'a'.repeat(10_000)}\r\n`,
        `X-More: ${'a'.repeat(10_000)}\r\n\r\n`,
      ]);
      assert.equal(res.status, 413, res.raw);
      assert.deepEqual(
        JSON.parse(res.body),
        problem(
          413,
          'Payload Too Large',
          1052,
          'Request too large: the request line and headers exceed 16 KiB',
          '/rest/v3',
        ),
      );
    });

    it('the second request of a keep-alive connection, after a v2 one', async () => {
      const res = await exchangeSegments(served.port, [
        'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET /rest/v3/ports HTTP/1.1\r\n',
        'not a header\r\n\r\n',
      ]);
      const responses = res.raw.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 2, res.raw);
      assert.match(responses[1]!, /^HTTP\/1\.1 400 Bad Request\r\nContent-Type: application\/problem\+json\r\n/);
      assert.match(responses[1]!, /"instance":"\/rest\/v3"/);
    });

    it('a v2 head after a v2 request with a body keeps the v2 shape (the body is no head)', async () => {
      const body = 'GET /rest/v3/ports HTTP/1.1\r\n';
      const res = await exchangeSegments(served.port, [
        `POST /rest/v2/nothing/ HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
        'GET /rest/v2/assets/ HTTP/1.1\r\n',
        'not a header\r\n\r\n',
      ]);
      const responses = res.raw.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 2, res.raw);
      assert.match(
        responses[1]!,
        /^HTTP\/1\.1 400 Bad Request\r\nContent-Type: application\/json\r\n[^]*\{"code":1051,/,
      );
    });
  });
});
