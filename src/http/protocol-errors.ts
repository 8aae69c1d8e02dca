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
      const body = path.replace(/\/$/, '').replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '([^/]+)');
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
    if (known !== undefined) return appError(known.code, `${known.label} malformed: longer than ${maxParamLength} characters`, [known.parameter]);
  }
  return appError(1900, `Endpoint unavailable: a path segment is longer than ${maxParamLength} characters`);
}

/**
 * Answers the router's own errors through the catalogue (Fastify's `frameworkErrors`): a path
 * with malformed percent-encoding (1900, the path not echoed), a parameter over the router's
 * length limit (the parameter's "malformed" code).
 */
export function createFrameworkErrorHandler(routes: RouteDef[], observe?: (request: FastifyRequest, reply: FastifyReply) => void) {
  const patterns = routePatterns(routes);
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    // These answers skip the request hooks: counted and logged here, once sent.
    if (observe !== undefined) reply.raw.once('finish', () => observe(request, reply));
    const path = (request.raw.url ?? '').split('?')[0] ?? '';
    const surface = surfaceOf(path);
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      void sendAppError(request, reply, overlongParameterError(patterns, path), { instance: `/rest/${surface === 'v3' ? 'v3' : 'v2'}` });
      return;
    }
    const reason = error.code === 'FST_ERR_BAD_URL' ? 'the path holds malformed percent-encoding' : 'the path cannot be routed';
    void sendAppError(request, reply, appError(1900, `Endpoint unavailable: ${reason}`), { instance: `/rest/${surface === 'v3' ? 'v3' : 'v2'}` });
  };
}

/** The catalogue error answering a failure of Node's HTTP parser, by its code. */
export function parserErrorOf(code: string): AppError {
  switch (code) {
    case 'HPE_INVALID_METHOD':
      return appError(1900, 'Endpoint unavailable: unknown HTTP method');
    case 'HPE_INVALID_URL':
      return appError(1900, 'Endpoint unavailable: the request target holds characters a URL path may not hold');
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return appError(1900, 'Endpoint unavailable: the request line is not an HTTP/1.1 request line');
    case 'HPE_HEADER_OVERFLOW':
      return appError(1052, 'Request too large: the request line and headers exceed 16 KiB');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return appError(1052, 'Request body too large: its chunk extensions exceed the limit');
    case 'HPE_INVALID_EOF_STATE':
      return appError(1051, 'Request incomplete: the connection was closed before the request ended');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return appError(1051, 'Request incomplete: it did not arrive within the time limit');
    case 'HPE_INVALID_HEADER_TOKEN':
      return appError(1051, 'Request malformed: a header is not a valid HTTP header line');
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_CR_EXPECTED':
    case 'HPE_LF_EXPECTED':
    case 'HPE_STRICT':
      return appError(1051, 'Request body malformed: broken chunked framing');
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return appError(1051, 'Request body malformed: its length is not given by one valid Content-Length or Transfer-Encoding');
    default:
      return appError(1051, 'Request malformed: it is not valid HTTP/1.1');
  }
}

/** A complete HTTP/1.1 response carrying the error in the shape of the path's surface, closing the connection. */
export function rawErrorResponse(error: AppError, path: string | undefined, requestId: string): string {
  const status = httpStatusOf[error.code];
  const isV3 = path !== undefined && surfaceOf(path) === 'v3';
  const body = JSON.stringify(isV3 ? problemBody(status, error.message, '/rest/v3', `/problems/${error.code}`) : v2ErrorBody(error.code, error.message, error.parameters));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `Content-Type: ${isV3 ? 'application/problem+json' : 'application/json'}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** The path of a request line at the start of the bytes, when they hold one (whatever its method). */
function pathOfRawRequest(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const match = /^[^ \r\n]{1,64} (\/[^ ?\r\n]*)/.exec(raw.subarray(0, 512).toString('latin1'));
  return match?.[1];
}

/** Fastify's `clientErrorHandler`, and the tracking of answers under way it needs. */
export interface ClientErrorHandler {
  /** Called for every error of a client connection (bound to the Fastify instance). */
  handle(this: { log: FastifyBaseLogger }, err: ConnectionError, socket: Socket): void;
  /** Follows the answers under way on the server's connections. */
  track(server: Server): void;
}

type ConnectionError = Error & { code?: string; rawPacket?: unknown };

/**
 * Answers errors of Node's HTTP parser (unknown method, bad bytes in the URL, broken chunked
 * framing, headers too large, too slow) with a catalogue body in the shape of the path's
 * surface (v2 when the path cannot be read) and `Connection: close`, then closes the
 * connection without a reset. A broken request that follows a complete one still being
 * answered (pipelining, keep-alive) is answered after it; a request broken in its own body
 * is answered at once, instead of its operation; when an answer already started, the
 * connection is only closed: nothing can be written in the middle of it.
 */
export function createClientErrorHandler(metrics: HttpMetrics): ClientErrorHandler {
  const answering = new WeakMap<Socket, ServerResponse>();
  // The parser fails again on every later byte of a refused connection: one answer only.
  const refused = new WeakSet<Socket>();
  return {
    handle(err, socket) {
      if (refused.has(socket) || isClosingLingering(socket)) return;
      refused.add(socket);
      const code = err.code ?? 'unknown';
      const current = answering.get(socket);
      const isAnswering = current !== undefined && !current.writableFinished;
      if (code === 'ECONNRESET' || code === 'EPIPE' || socket.destroyed || (isAnswering && current.headersSent && !current.req.complete)) {
        socket.destroy();
        return;
      }
      const isOwnBody = isAnswering && !current.req.complete;
      const error = parserErrorOf(code);
      const requestId = randomUUID();
      const path = isOwnBody ? current.req.url?.split('?')[0] : pathOfRawRequest(err.rawPacket);
      metrics.parseErrors.inc({ code });
      this.log.info({ request_id: requestId, parser_code: code, code: error.code }, 'request refused by the HTTP parser');
      const answer = (): void => {
        if (socket.writable) socket.write(rawErrorResponse(error, path, requestId));
        closeLingering(socket);
      };
      if (isAnswering && !isOwnBody) {
        current.once('finish', answer);
        current.once('close', () => (current.writableFinished ? undefined : socket.destroy()));
      } else {
        answer();
      }
    },
    track(server) {
      server.on('request', (req: IncomingMessage, res: ServerResponse) => answering.set(req.socket, res));
    },
  };
}

/** Marks an answer as the last on its connection, closed without a reset once written (see closeLingering). */
export function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  // What the client still sends is read and dropped, so it can finish writing and read the answer.
  if (!request.raw.readableEnded) request.raw.resume();
  lingerAfterResponse(request.raw.socket);
}
