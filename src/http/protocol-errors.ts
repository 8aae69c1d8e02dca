import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { appError, type AppError } from '../core/errors/app-error.ts';
import type { ErrorCode } from '../core/errors/error-catalogue.ts';
import { httpStatusOf } from './error-status.ts';
import { problemBody, sendAppError, surfaceOf, v2ErrorBody } from './errors.ts';
import { closeLingering, isClosingLingering, lingerAfterResponse } from './lingering-close.ts';
import type { HttpMetrics } from './metrics.ts';
import type { RouteDef } from './route.ts';

/**
 * Longest path parameter the router takes. Node's parser refuses a request line and headers
 * over 16 KiB first (431 → 1052 below), so over HTTP every parameter reaches its route, which
 * answers its own "malformed" code after authentication, as for any other malformed value.
 */
export const maxParamLength = 16 * 1024;

/** The "malformed" code of each path parameter, as the core's validators answer it. */
const pathParameterCodes: Record<string, { code: ErrorCode; label: string; parameter: string }> = {
  assetToken: { code: 2011, label: 'Domain token', parameter: 'token' },
  domainToken: { code: 2011, label: 'Domain token', parameter: 'token' },
  scanProfileToken: { code: 2601, label: 'Scan profile token', parameter: 'scanProfileToken' },
  reportToken: { code: 2601, label: 'Report token', parameter: 'reportToken' },
  lookupJobUUID: { code: 6001, label: 'Lookup job UUID', parameter: 'lookupJobUUID' },
  uuid: { code: 4111, label: 'Vulnerability UUID', parameter: 'uuid' },
  groupToken: { code: 9001, label: 'Group token', parameter: 'groupToken' },
  assetPatternToken: { code: 9011, label: 'Asset pattern token', parameter: 'assetPatternToken' },
  groupMemberToken: { code: 9021, label: 'Group member token', parameter: 'groupMemberToken' },
};

interface RoutePattern {
  pattern: RegExp;
  names: string[];
}

/** The paths of every operation as patterns that capture their parameters (raw, undecoded). */
function routePatterns(routes: RouteDef[]): RoutePattern[] {
  return routes.flatMap((def) =>
    [def.path, ...(def.aliases ?? [])].map((path) => {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const body = path
        .replace(/\/$/, '')
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{\w+\}/g, '([^/]+)');
      return { pattern: new RegExp(`^/rest/${def.surface}${body}/?$`), names };
    }),
  );
}

/**
 * The answer to a path parameter longer than the router takes (reachable only past Node's
 * header limit, e.g. through inject): the parameter's own "malformed" code, 1900 when the path
 * names no operation.
 */
function overlongParameterError(patterns: RoutePattern[], path: string): AppError {
  for (const { pattern, names } of patterns) {
    const match = pattern.exec(path);
    if (match === null) continue;
    const index = names.findIndex((_, i) => (match[i + 1] ?? '').length > maxParamLength);
    const known = index === -1 ? undefined : pathParameterCodes[names[index]!];
    if (known !== undefined)
      return appError(known.code, `${known.label} malformed: longer than ${maxParamLength} characters`, [
        known.parameter,
      ]);
  }
  return appError(1900, protocolErrors['FST_ERR_MAX_PARAM_LENGTH']!.message);
}

/**
 * Answers the router's own errors through the catalogue (Fastify's `frameworkErrors`): a path
 * with malformed percent-encoding (1900, the path not echoed), a parameter over the router's
 * length limit (the parameter's "malformed" code).
 */
export function createFrameworkErrorHandler(
  routes: RouteDef[],
  observe?: (request: FastifyRequest, reply: FastifyReply) => void,
) {
  const patterns = routePatterns(routes);
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    // These answers skip the request hooks: counted and logged here, once sent.
    if (observe !== undefined) reply.raw.once('finish', () => observe(request, reply));
    const path = (request.raw.url ?? '').split('?')[0] ?? '';
    const surface = surfaceOf(path);
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      void sendAppError(request, reply, overlongParameterError(patterns, path), {
        instance: `/rest/${surface === 'v3' ? 'v3' : 'v2'}`,
      });
      return;
    }
    // FST_ERR_BAD_URL, FST_ERR_ASYNC_CONSTRAINT: 1900, the path not echoed.
    const known = frameworkErrorOf(error) ?? appError(1900, protocolErrors['FST_ERR_ASYNC_CONSTRAINT']!.message);
    void sendAppError(request, reply, known, { instance: `/rest/${surface === 'v3' ? 'v3' : 'v2'}` });
  };
}

/** How one error a request can cause before any operation runs is answered. */
export interface ProtocolAnswer {
  /** The catalogue code answered (the HTTP status is the code's); null when nothing can be answered. */
  code: ErrorCode | null;
  message: string;
  /** The message when Node's parser failed in the request head rather than in a chunked body. */
  inHead?: string;
}

const framing = 'Request body malformed: broken chunked framing';
const length = 'Request body malformed: its length is not given by one valid Content-Length or Transfer-Encoding';
const headerLine = 'Request malformed: a header is not a valid HTTP header line';
const requestLine = 'Endpoint unavailable: the request line is not an HTTP/1.1 request line';

/**
 * Every error a request can cause before an operation runs, by its code, and its catalogue
 * answer: Node's HTTP parser (the server's 'clientError' event, `HPE_*`, timeouts), Node's HTTP
 * server (requests it would answer or drop itself), Fastify's router and body reading
 * (`FST_ERR_*`). Fastify's other codes are programming or configuration errors, answered 1910.
 * docs/operations.md ("Errors outside the operations") lists the same table.
 */
export const protocolErrors: Record<string, ProtocolAnswer> = {
  // Node's parser, the request line: nothing names an operation.
  HPE_INVALID_METHOD: { code: 1900, message: 'Endpoint unavailable: unknown HTTP method' },
  HPE_PAUSED_H2_UPGRADE: { code: 1900, message: 'Endpoint unavailable: HTTP/2 is not served; use HTTP/1.1' },
  HPE_INVALID_URL: {
    code: 1900,
    message: 'Endpoint unavailable: the request target holds characters a URL path may not hold',
  },
  HPE_INVALID_VERSION: { code: 1900, message: requestLine },
  HPE_INVALID_CONSTANT: { code: 1900, message: requestLine },
  // Node's parser, the headers.
  HPE_INVALID_HEADER_TOKEN: { code: 1051, message: headerLine },
  HPE_UNEXPECTED_SPACE: { code: 1051, message: headerLine },
  HPE_HEADER_OVERFLOW: { code: 1052, message: 'Request too large: the request line and headers exceed 16 KiB' },
  HPE_INVALID_CONTENT_LENGTH: { code: 1051, message: length },
  HPE_UNEXPECTED_CONTENT_LENGTH: { code: 1051, message: length },
  HPE_INVALID_TRANSFER_ENCODING: { code: 1051, message: length },
  // Node's parser, line ends of the head or of a chunked body.
  HPE_CR_EXPECTED: {
    code: 1051,
    message: framing,
    inHead: 'Request malformed: a line of the request head does not end in CRLF',
  },
  HPE_LF_EXPECTED: {
    code: 1051,
    message: framing,
    inHead: 'Request malformed: a line of the request head does not end in CRLF',
  },
  HPE_STRICT: {
    code: 1051,
    message: framing,
    inHead: 'Request malformed: a line of the request head does not end in CRLF',
  },
  // Node's parser, a chunked body.
  HPE_INVALID_CHUNK_SIZE: { code: 1051, message: framing },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    code: 1052,
    message: 'Request body too large: its chunk extensions exceed the limit',
  },
  // The connection.
  HPE_INVALID_EOF_STATE: {
    code: 1051,
    message: 'Request incomplete: the connection was closed before the request ended',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 1051, message: 'Request incomplete: it did not arrive within the time limit' },
  HPE_CLOSED_CONNECTION: {
    code: null,
    message: 'bytes after a request with Connection: close: that request is answered, the rest dropped',
  },
  ECONNRESET: { code: null, message: 'the client reset the connection' },
  EPIPE: { code: null, message: 'the client closed the connection' },
  // Node's HTTP server: requests it would drop or answer itself.
  CONNECT: { code: 1900, message: 'Endpoint unavailable: CONNECT is not served (this server is not a proxy)' },
  EXPECT: { code: 1051, message: 'Request malformed: the only expectation this server meets is Expect: 100-continue' },
  HOST: { code: 1051, message: 'Request malformed: an HTTP/1.1 request must carry a Host header' },
  // Fastify, the router (frameworkErrors) and the request's content.
  FST_ERR_BAD_URL: { code: 1900, message: 'Endpoint unavailable: the path holds malformed percent-encoding' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 1900, message: 'Endpoint unavailable: the path cannot be routed' },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 1900,
    message: `Endpoint unavailable: a path segment is longer than ${maxParamLength} characters`,
  },
  // QUERY without a Content-Type: on a path with no QUERY operation (every path today) it is
  // answered as any method no operation takes (1900, v3 404 / 405), before this row.
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: {
    code: 1051,
    message: 'Request malformed: a QUERY request must carry a Content-Type',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 1052, message: 'Request body too large for this operation' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 1051,
    message: 'Request body malformed: its Content-Type is not a valid media type',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 1051,
    message: 'Request body malformed: its size does not match its Content-Length',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 1051,
    message: 'Request body malformed: empty with Content-Type application/json',
  },
};

/** The answer to a parser code missing from the table (`HPE_INTERNAL`, `HPE_USER`, `HPE_CB_*` …). */
const otherParserError: ProtocolAnswer = { code: 1051, message: 'Request malformed: it is not valid HTTP/1.1' };

/** The catalogue error answering a failure of Node's HTTP parser, by its code; undefined when nothing is answered. */
export function parserErrorOf(code: string, options: { inHead?: boolean } = {}): AppError | undefined {
  const row = protocolErrors[code] ?? otherParserError;
  if (row.code === null) return undefined;
  return appError(row.code, options.inHead === true && row.inHead !== undefined ? row.inHead : row.message);
}

/** Maps a framework error (body too large, bad URL …) to the catalogue; undefined when it is a real failure. */
export function frameworkErrorOf(error: { code?: string; statusCode?: number; message: string }): AppError | undefined {
  const row = error.code?.startsWith('FST_') === true ? protocolErrors[error.code] : undefined;
  if (row !== undefined && row.code !== null) return appError(row.code, row.message);
  if (error.statusCode === 413) return appError(1052, 'Request body too large');
  if (error.statusCode === 400 && /aborted|closed/i.test(error.message))
    return appError(1051, 'Request body incomplete');
  return undefined;
}

/** A complete HTTP/1.1 response carrying the error in the shape of the path's surface, closing the connection. */
export function rawErrorResponse(error: AppError, path: string | undefined, requestId: string): string {
  const { status, contentType, body } = errorAnswer(error, path);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `Content-Type: ${contentType}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Status, type and body of an error answered outside Fastify, in the shape of the path's surface (v2 when unknown). */
function errorAnswer(error: AppError, path: string | undefined): { status: number; contentType: string; body: string } {
  const status = httpStatusOf[error.code];
  const isV3 = path !== undefined && surfaceOf(path) === 'v3';
  const body = JSON.stringify(
    isV3
      ? problemBody(status, error.message, '/rest/v3', `/problems/${error.code}`)
      : v2ErrorBody(error.code, error.message, error.parameters),
  );
  return { status, contentType: isV3 ? 'application/problem+json' : 'application/json', body };
}

/** The path of a request line at the start of the bytes, when they hold one (whatever its method). */
function pathOfRawRequest(raw: unknown): string | undefined {
  const text = Buffer.isBuffer(raw) ? raw.toString('latin1', 0, 512) : typeof raw === 'string' ? raw : undefined;
  if (text === undefined) return undefined;
  const match = /^(?:\r?\n)*[^ \r\n]{1,64} (\/[^ ?\r\n]*)/.exec(text);
  return match?.[1];
}

/** Bytes kept of a request head in progress: enough for the method and the path's surface. */
const headStartBytes = 96;

/** Fastify's `clientErrorHandler`, and the tracking of connections it needs. */
export interface ClientErrorHandler {
  /** Called for every error of a client connection (bound to the Fastify instance). */
  handle(this: { log: FastifyBaseLogger }, err: ConnectionError, socket: Socket): void;
  /** Follows the answers under way and the request heads arriving on the server's connections; answers CONNECT and Expect. */
  track(server: Server, log: FastifyBaseLogger): void;
}

type ConnectionError = Error & { code?: string; rawPacket?: unknown };

/**
 * Answers errors of Node's HTTP parser (unknown method, bad bytes in the URL, broken chunked
 * framing, headers too large, too slow) and the requests Node's server would drop or answer
 * itself (CONNECT, an unmet Expect) with a catalogue body in the shape of the path's surface
 * (v2 when the path cannot be read) and `Connection: close`, then closes the connection
 * without a reset. A broken request that follows a complete one still being answered
 * (pipelining, keep-alive) is answered after it; a request broken in its own body is answered
 * at once, instead of its operation; when an answer already started, the connection is only
 * closed: nothing can be written in the middle of it.
 *
 * The surface comes from the request line. Node's parser hands only the last segment it read
 * (`rawPacket`), so the first bytes of a head that arrives in several segments are kept per
 * connection (at most 96 bytes, only while that head is incomplete).
 */
export function createClientErrorHandler(metrics: HttpMetrics): ClientErrorHandler {
  const state: ConnectionState = {
    answering: new WeakMap(),
    refused: new WeakSet(),
    headStarts: new WeakMap(),
  };
  const refuse = refuser(metrics);
  return {
    handle(err, socket) {
      handleParserError(state, metrics, refuse, this.log, err, socket);
    },
    track(server, log) {
      trackConnections(server, state);
      // CONNECT: without a listener Node destroys the connection without a word.
      server.on('connect', (req: IncomingMessage, socket: Socket) => {
        socket.on('error', () => undefined);
        socket.resume();
        const current = state.answering.get(socket);
        const path = req.url?.startsWith('/') === true ? req.url.split('?')[0] : undefined;
        refuse(
          log,
          socket,
          'CONNECT',
          parserErrorOf('CONNECT')!,
          path,
          current !== undefined && !current.writableFinished ? current : undefined,
        );
      });
      // An Expect other than 100-continue: Node would answer a bare 417.
      server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
        refuseExpectation(metrics, log, req, res),
      );
    },
  };
}

/** What the client-error handler follows per connection. */
interface ConnectionState {
  /** The answer under way on each connection. */
  answering: WeakMap<Socket, ServerResponse>;
  /** Connections already refused: the parser fails again on every later byte, one answer only. */
  refused: WeakSet<Socket>;
  /** The first bytes of the request head in progress, kept until Node emits its request. */
  headStarts: WeakMap<Socket, string>;
}

type Refuse = (
  log: FastifyBaseLogger,
  socket: Socket,
  code: string,
  error: AppError,
  path: string | undefined,
  current: ServerResponse | undefined,
) => void;

/** Answers a refused request on its connection (after the answer under way, if any), then closes it. */
function refuser(metrics: HttpMetrics): Refuse {
  return (log, socket, code, error, path, current) => {
    const requestId = randomUUID();
    metrics.parseErrors.inc({ code });
    log.info({ request_id: requestId, parser_code: code, code: error.code }, 'request refused by the HTTP parser');
    const answer = (): void => {
      if (socket.writable) socket.write(rawErrorResponse(error, path, requestId));
      closeLingering(socket);
    };
    if (current !== undefined) {
      current.once('finish', answer);
      current.once('close', () => (current.writableFinished ? undefined : socket.destroy()));
    } else {
      answer();
    }
  };
}

/** One error of Node's parser on a connection: answered once, in the path's surface, or the connection closed. */
function handleParserError(
  state: ConnectionState,
  metrics: HttpMetrics,
  refuse: Refuse,
  log: FastifyBaseLogger,
  err: ConnectionError,
  socket: Socket,
): void {
  if (state.refused.has(socket) || isClosingLingering(socket)) return;
  state.refused.add(socket);
  const code = err.code ?? 'unknown';
  const current = state.answering.get(socket);
  const isAnswering = current !== undefined && !current.writableFinished;
  if (code === 'HPE_CLOSED_CONNECTION' && isAnswering) {
    // The request before these bytes asked to close: its answer does, the bytes are dropped.
    metrics.parseErrors.inc({ code });
    return;
  }
  const isOwnBody = isAnswering && !current.req.complete;
  const error = parserErrorOf(code, { inHead: !isOwnBody });
  if (error === undefined || socket.destroyed || (isAnswering && current.headersSent && !current.req.complete)) {
    socket.destroy();
    return;
  }
  const path = isOwnBody
    ? current.req.url?.split('?')[0]
    : (pathOfRawRequest(state.headStarts.get(socket)) ?? pathOfRawRequest(err.rawPacket));
  refuse(log, socket, code, error, path, isAnswering && !isOwnBody ? current : undefined);
}

/** Follows the answer under way on each connection and the first bytes of each request head arriving. */
function trackConnections(server: Server, state: ConnectionState): void {
  const { answering, headStarts } = state;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answering.set(req.socket, res);
    headStarts.delete(req.socket);
  });
  server.on('connection', (socket: Socket) => {
    // A 'data' listener makes Node hand the bytes to the parser from JavaScript (no longer
    // straight from the socket): each segment passes here first, before it is parsed.
    socket.prependListener('data', (chunk: Buffer) => {
      const start = headStarts.get(socket);
      if (start !== undefined) {
        // A head in progress: its first bytes, until the end of the request line.
        if (start.length < headStartBytes && !start.includes('\n'))
          headStarts.set(socket, start + chunk.toString('latin1', 0, headStartBytes - start.length));
        return;
      }
      // A segment of a request body still arriving is no head.
      const req = answering.get(socket)?.req;
      if (req !== undefined && !req.complete) return;
      headStarts.set(socket, chunk.toString('latin1', 0, headStartBytes));
    });
  });
}

/** Answers an Expect other than 100-continue through the catalogue, then closes the connection. */
function refuseExpectation(
  metrics: HttpMetrics,
  log: FastifyBaseLogger,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const requestId = randomUUID();
  const error = parserErrorOf('EXPECT')!;
  const { status, contentType, body } = errorAnswer(error, req.url?.split('?')[0]);
  metrics.parseErrors.inc({ code: 'EXPECT' });
  log.info({ request_id: requestId, parser_code: 'EXPECT', code: error.code }, 'request refused by the HTTP parser');
  req.resume();
  lingerAfterResponse(req.socket);
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    Connection: 'close',
  });
  res.end(body);
}

/** Marks an answer as the last on its connection, closed without a reset once written (see closeLingering). */
export function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  // What the client still sends is read and dropped, so it can finish writing and read the answer.
  if (!request.raw.readableEnded) request.raw.resume();
  lingerAfterResponse(request.raw.socket);
}
