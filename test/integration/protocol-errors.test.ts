import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/http/app.ts';
import { createHarness, testStore, v2Error, type Harness } from '../support/harness.ts';
import { exchangeRaw, sendOversizedBody, type RawResponse } from '../support/raw-http.ts';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The harness's runtime served on a loopback port by an app whose log lines are kept. */
async function serveWithLog(h: Harness): Promise<{ app: FastifyInstance; port: number; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const app = await buildApp({ ...h.runtime, logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as net.AddressInfo).port, lines };
}

/** Asserts a refusal that closed the connection cleanly: no reset, the server's FIN, `Connection: close`. */
function assertCleanClose(res: RawResponse): void {
  assert.equal(res.errorCode, undefined, `the client saw ${res.errorCode}`);
  assert.equal(res.isEndedByServer, true, 'the server closed its side with a FIN');
  assert.equal(res.headers['connection'], 'close');
}

/** A v2 catalogue answer with the expected status and body, a request id, and a clean close. */
function assertV2Refusal(res: RawResponse, expected: { status: number; body: Record<string, unknown> }): void {
  assert.equal(res.status, expected.status, res.raw);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
  assert.deepEqual(JSON.parse(res.body), expected.body);
  assertCleanClose(res);
}

function problem(
  status: number,
  title: string,
  code: number,
  detail: string,
  instance: string,
): Record<string, unknown> {
  return { type: `/problems/${code}`, title, status, detail, instance };
}

/** Sends the parts on one connection as separate TCP segments, 50 ms apart, and reads until the server closes. */
const exchangeSegments = (
  port: number,
  parts: string[],
  options: { isHalfClosed?: boolean } = {},
): Promise<RawResponse> => exchangeRaw(port, parts, { segmentGapMs: 50, ...options });

describe(`requests no operation can read answer through the catalogue (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let served: { app: FastifyInstance; port: number; lines: LogLine[] };

  before(async () => {
    h = await createHarness();
    key = (await h.team('protocol')).key;
    served = await serveWithLog(h);
  });
  after(async () => {
    await served.app.close();
    await h.close();
  });

  describe('a body over the limit: 413 with 1052, then a clean close', () => {
    const head = (path: string, framing: string) =>
      `POST ${path} HTTP/1.1\r\nHost: perimeter.test\r\nX-Service-Key: ${key}\r\nContent-Type: text/plain\r\n${framing}\r\n`;
    const cases = [
      {
        name: 'a JSON operation (1 MB), Content-Length announced',
        path: '/rest/v2/assets/',
        total: 3_000_000,
        isChunked: false,
        limit: undefined,
      },
      {
        name: 'a JSON operation (1 MB), chunked',
        path: '/rest/v2/assets/',
        total: 3_000_000,
        isChunked: true,
        limit: undefined,
      },
      {
        name: 'the zone file upload (5 MB), Content-Length announced',
        path: '/rest/v2/zone/file/?origin=example.test',
        total: 6_000_000,
        isChunked: false,
        limit: 5 * 1024 * 1024,
      },
      {
        name: 'the zone file upload (5 MB), chunked',
        path: '/rest/v2/zone/file/?origin=example.test',
        total: 6_000_000,
        isChunked: true,
        limit: 5 * 1024 * 1024,
      },
      {
        name: 'the zone lookup upload (50 MB), Content-Length announced',
        path: '/rest/v2/zone/lookup/file/',
        total: 53_000_000,
        isChunked: false,
        limit: 50 * 1024 * 1024,
      },
      {
        name: 'the zone lookup upload (50 MB), chunked',
        path: '/rest/v2/zone/lookup/file/',
        total: 53_000_000,
        isChunked: true,
        limit: 50 * 1024 * 1024,
      },
    ];
    for (const c of cases) {
      it(`${c.name}: the client still sending reads the whole answer`, async () => {
        const res = await sendOversizedBody(
          served.port,
          head(c.path, c.isChunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${c.total}\r\n`),
          c.total,
          { isChunked: c.isChunked },
        );
        assert.equal(res.status, 413, res.raw.slice(0, 300));
        const message =
          c.limit === undefined
            ? 'Request body too large for this operation'
            : `Request body too large for this operation (at most ${c.limit} bytes)`;
        assert.deepEqual(JSON.parse(res.body), v2Error(1052, message));
        assertCleanClose(res);
      });
    }

    it('left nothing behind: no lookup job, no zone asset', async () => {
      assert.deepEqual((await h.send('GET', '/rest/v2/assets/', { key })).json(), {});
      const db = h.runtime.database.db;
      assert.deepEqual(await db.selectFrom('zone_lookup_jobs').select('uuid').execute(), []);
      assert.deepEqual(await db.selectFrom('zone_lookup_chunks').select('seq').execute(), []);
    });

    it('logs a client that hangs up in the middle of an upload at info, as a hang-up, not a failure', async () => {
      for (const path of [
        '/rest/v2/zone/file/?origin=example.test',
        '/rest/v2/zone/lookup/file/',
        '/rest/v2/assets/',
      ]) {
        const before = served.lines.length;
        const socket = net.connect(served.port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write(head(path, 'Content-Length: 1000000\r\n'));
        socket.write(Buffer.from('www.example.test\n'.repeat(5000)));
        await new Promise((resolve) => setTimeout(resolve, 100));
        socket.destroy();
        const deadline = Date.now() + 3000;
        const isLogged = () =>
          served.lines
            .slice(before)
            .some((l) => l.level === 30 && l.msg === 'client closed the connection before the answer');
        while (!isLogged() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        const lines = served.lines.slice(before);
        assert.ok(isLogged(), JSON.stringify(lines));
        assert.deepEqual(
          lines.filter((l) => l.level >= 40),
          [],
          path,
        );
      }
    });

    it('logged no line at warn or error level, and no "aborted" above info', () => {
      const loud = served.lines.filter((l) => l.level >= 40);
      assert.deepEqual(loud, []);
      assert.deepEqual(
        served.lines.filter((l) => l.level > 30 && /abort/i.test(JSON.stringify(l))),
        [],
      );
    });
  });

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
