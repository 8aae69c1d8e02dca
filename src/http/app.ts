import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../core/errors/app-error.ts';
import type { BodyVerifier } from '../core/teams/api-key.service.ts';
import { assertCanCall } from '../core/teams/caller.ts';
import { takeRelease } from '../shared/page-render.mjs';
import { TtlCache } from '../core/shared/ttl-cache.ts';
import { loadTeam } from '../core/teams/team.service.ts';
import type { ApiKey, Team } from '../core/teams/team.types.ts';
import type { AppDeps } from './deps.ts';
import { NotFoundProblem, sendAppError, sendProblem, surfaceOf } from './errors.ts';
import { createMetrics } from './metrics.ts';
import {
  closeAfterAnswer,
  createClientErrorHandler,
  createFrameworkErrorHandler,
  frameworkErrorOf,
  maxParamLength,
  parserErrorOf,
} from './protocol-errors.ts';
import { registerOpsRoutes } from './ops.routes.ts';
import { answerConsoleNotFound, registerConsole } from './console/console.plugin.ts';
import { authenticateRequest } from './plugins/auth.ts';
import type { Method, RouteDef } from './route.ts';
import { allRoutes } from './routes.ts';
import { compileRouteValidator } from './validation.ts';

/** Default body limit; operations that take more say so in their definition. */
export const defaultBodyLimit = 1024 * 1024;

/** Fastify path of a spec path: `{param}` becomes `:param`. */
function fastifyPath(surface: 'v2' | 'v3', path: string): string {
  return `/rest/${surface}${path.replace(/\{(\w+)\}/g, ':$1')}`;
}

/** A regular expression matching a route path with or without its trailing slash. */
function pathPattern(surface: 'v2' | 'v3', path: string): RegExp {
  const body = fastifyPath(surface, path).replace(/\/$/, '').replace(/:\w+/g, '[^/]+');
  return new RegExp(`^${body}/?$`);
}

/** Builds the server without listening: every route, hook and error formatter. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const routes = allRoutes();
  const metrics = createMetrics();
  const observeResponse = responseObserver(metrics);
  const clientErrors = createClientErrorHandler(metrics);
  const app = createServer(deps, routes, observeResponse, clientErrors.handle);
  clientErrors.track(app.server, app.log);

  // Every body is read as raw bytes: signatures cover the exact bytes, zone uploads are text
  // whatever their Content-Type, and JSON is parsed by the operation (1050/1051 are ours).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  addLifecycleHooks(app, observeResponse);

  // Key and team records are reused for 2 s: a revoked key or a plan change takes effect within that.
  const caches: RequestCaches = {
    keys: new TtlCache<ApiKey>(authCacheTtlMs),
    teams: new TtlCache<Team>(authCacheTtlMs),
  };
  const answerNoOperation = noOperationAnswer(deps, routes, caches);
  app.setErrorHandler(errorAnswer(metrics, answerNoOperation));
  app.setNotFoundHandler(answerNoOperation);

  registerOpsRoutes(app, deps, metrics, routes);
  registerConsole(app, deps);
  for (const def of routes) registerRoute(app, deps, def, caches);
  return app;
}

type Metrics = ReturnType<typeof createMetrics>;
type Answer = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Counts and logs one answered request (the router's own errors included, which skip the hooks). */
function responseObserver(metrics: Metrics): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    const status = String(reply.statusCode);
    metrics.requests.inc({ method: request.method, route, status });
    if (reply.statusCode >= 500) metrics.faults.inc({ method: request.method, route, status });
    metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
  };
}

/** The Fastify instance with the server's options: router, limits, request ids, logging and the protocol-error handlers. */
function createServer(
  deps: AppDeps,
  routes: RouteDef[],
  observeResponse: (request: FastifyRequest, reply: FastifyReply) => void,
  clientErrorHandler: ReturnType<typeof createClientErrorHandler>['handle'],
): FastifyInstance {
  return Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: { level: deps.config.logLevel } }),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: false, maxParamLength },
    bodyLimit: defaultBodyLimit,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    // Requests are logged once, on response, by the onResponse hook (addLifecycleHooks).
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    return503OnClosing: true,
    // Errors raised before any route runs answer through the catalogue too.
    frameworkErrors: createFrameworkErrorHandler(routes, (request, reply) => observeResponse(request, reply)),
    clientErrorHandler,
    // An HTTP/1.1 request without Host is refused in onRequest, through the catalogue (Node answers a bare 400).
    http: { requireHostHeader: false },
  });
}

/** The request id header, the Host rule, closing connections on shutdown and the response log. */
function addLifecycleHooks(
  app: FastifyInstance,
  observeResponse: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      reply.header('connection', 'close');
      throw parserErrorOf('HOST')!;
    }
  });

  // Closing: a request in flight still gets its answer, then its connection closes. A keep-alive
  // client would otherwise hold the process open for the keep-alive time-out after the answer
  // (the server closes only connections idle when close() starts).
  let isClosing = false;
  app.addHook('preClose', async () => {
    isClosing = true;
    const timer = setInterval(() => app.server.closeIdleConnections(), 100);
    timer.unref();
    app.server.once('close', () => clearInterval(timer));
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (isClosing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => observeResponse(request, reply));
}

/** The error handler: catalogue errors as they are, framework errors mapped, anything else 1910. */
function errorAnswer(metrics: Metrics, answerNoOperation: Answer) {
  const handleError = (
    error: Error & { code?: string; statusCode?: number },
    request: FastifyRequest,
    reply: FastifyReply,
  ): FastifyReply | Promise<FastifyReply> => {
    if (error instanceof NotFoundProblem) return sendProblem(request, reply, 404, error.message);
    // QUERY without a Content-Type on a path no QUERY operation serves: any other method's answer there.
    if (error.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE' && request.is404)
      return answerNoOperation(request, reply).catch((err: Error) => handleError(err, request, reply));
    if (!isAppError(error) && isClientGone(request, error)) {
      // The client hung up mid-request: nothing to answer, nothing failed here.
      request.log.info({ reason: error.message }, 'client closed the connection before the answer');
      return sendAppError(
        request,
        reply,
        new AppError(1051, 'Request body incomplete: the client closed the connection'),
      );
    }
    const known = isAppError(error) ? error : frameworkErrorOf(error);
    if (known === undefined) {
      request.log.error({ err: error }, 'unexpected failure');
      return sendAppError(
        request,
        reply,
        new AppError(1910, `Technical issue while processing the request (request id ${request.id})`),
      );
    }
    if (known.remoteFailure !== undefined)
      metrics.remoteFailures.inc({ operation: known.remoteFailure.operation, reason: known.remoteFailure.reason });
    // A refused body may still be arriving: answer, then close without a reset.
    if (known.code === 1052 || reply.getHeader('connection') === 'close') closeAfterAnswer(request, reply);
    return sendAppError(request, reply, known);
  };
  return handleError;
}

/** The answer to a path no operation serves, or a method none takes there. */
function noOperationAnswer(deps: AppDeps, routes: RouteDef[], caches: RequestCaches): Answer {
  const v3Patterns = routes
    .filter((r) => r.surface === 'v3')
    .map((r) => ({ pattern: pathPattern('v3', r.path), def: r }));
  return async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    // Outside the APIs, the console's not-found page.
    if (!/^\/rest(\/|$)/.test(path)) return answerConsoleNotFound(deps, request, reply);
    if (/^\/rest\/v1(\/|$)/.test(path))
      return sendAppError(
        request,
        reply,
        new AppError(1999, 'Endpoint discontinued: version 1 of the API has been retired; use /rest/v2 or /rest/v3'),
      );
    if (surfaceOf(path) === 'v3') {
      // The v3 router authenticates before it tells what exists.
      const { body } = await authenticateRequest(deps, request, 'v3', caches.keys);
      body.update(Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));
      body.verify();
      const isKnownPath = v3Patterns.some((p) => p.pattern.test(path));
      return isKnownPath
        ? sendProblem(request, reply, 405, `Method ${request.method} is not allowed on ${path}`)
        : sendProblem(request, reply, 404, `No operation at ${path}`);
    }
    return sendAppError(
      request,
      reply,
      new AppError(1900, `Endpoint unavailable: no operation ${request.method} ${path}`),
    );
  };
}

interface RequestCaches {
  keys: TtlCache<ApiKey>;
  teams: TtlCache<Team>;
}

/** How long key and team records are reused between store reads. */
export const authCacheTtlMs = 2000;

/**
 * A body in lent memory (a slot of a store reader's slab, see page-render.mjs) is given back once
 * the response is over: 'close' follows 'finish' (the last bytes handed to the kernel) or an
 * abandoned connection, after which nothing reads the memory. Fastify would serialise a view of a
 * SharedArrayBuffer as JSON, so the body is passed through as the bytes it is.
 */
function sendsLent(reply: FastifyReply, release: () => void): void {
  reply.serializer(passBytes);
  const socket = reply.raw.socket;
  // A connection already gone writes nothing: the memory can go back once the send returned.
  if (socket === null || socket.destroyed) setImmediate(release);
  else reply.raw.once('close', release);
}

const passBytes = (payload: unknown): string => payload as string;

function registerRoute(app: FastifyInstance, deps: AppDeps, def: RouteDef, caches: RequestCaches): void {
  const methods: Method[] = [def.method, ...(def.alsoMethods ?? [])];
  const limit = def.bodyLimit ?? defaultBodyLimit;
  const validator = compileRouteValidator(def);
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (def.isStreamingBody) assertAnnouncedLength(request, limit);
    const { caller, body } = await authenticateRequest(deps, request, def.surface, caches.keys);
    let rawBody: Buffer = Buffer.alloc(0);
    if (!def.isStreamingBody) {
      rawBody = Buffer.isBuffer(request.body) ? request.body : rawBody;
      body.update(rawBody);
      body.verify();
    }
    const teamId = caller.teamIds[0]!;
    const team =
      (await caches.teams.get(String(teamId), () => deps.store.teams.findById(teamId))) ??
      (await loadTeam(deps.store, teamId));
    assertCanCall(caller, team, def.group);
    const stream = def.isStreamingBody
      ? new VerifiedBody(isReadable(request.body) ? request.body : request.raw, limit, body)
      : undefined;
    const query = request.query as Record<string, string | string[] | undefined>;
    let result;
    try {
      // The route's schemas validate its inputs once the caller may call it, before the handler.
      const params = request.params as Record<string, string>;
      const input = validator.validate({ query, rawBody, params, deps, team });
      result = await def.handler({
        deps,
        caller,
        team,
        params,
        query,
        input: input.query,
        body: input.body,
        checkedBody: input.checkedBody,
        checkedParam: input.checkedParam,
        // An operation that checks its query on use reads it here, on a cache miss.
        checkedQuery: validator.isQueryLazy ? () => validator.query({ query, deps, team }) : queryCheckedBefore,
        rawBody,
        bodyStream: stream ?? emptyStream(),
        request,
        reply,
      });
    } catch (err) {
      // A request that fails mid-body answers 1003 if its signature is bad, whatever else failed.
      await stream?.drainAndVerify();
      throw err;
    }
    reply.code(result.status);
    if (result.headers !== undefined) reply.headers(result.headers);
    if (result.stream !== undefined)
      return reply.type(result.contentType ?? 'application/octet-stream').send(result.stream);
    if (result.json !== undefined) {
      const release = typeof result.json === 'string' ? undefined : takeRelease(result.json);
      if (release !== undefined) sendsLent(reply, release);
      return reply.type(result.contentType ?? 'application/json').send(result.json);
    }
    if (result.body === undefined) return reply.send();
    return reply.type('application/json').send(JSON.stringify(result.body));
  };
  const register = (target: FastifyInstance) => {
    for (const path of [def.path, ...(def.aliases ?? [])]) {
      target.route({ method: methods, url: fastifyPath(def.surface, path), bodyLimit: limit, handler });
    }
  };
  if (!def.isStreamingBody) return register(app);
  // A streaming operation gets the request stream itself, whatever the Content-Type.
  void app.register(async (child) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    register(child);
  });
}

/** `checkedQuery` of an operation whose query was checked before its handler ran (it reads `ctx.input`). */
function queryCheckedBefore(): never {
  throw new Error('checkedQuery() is for operations that check their query on use; this one reads ctx.input');
}

function isReadable(value: unknown): value is Readable {
  return value instanceof Readable;
}

/** True when the error only says that the client closed its connection before the answer. */
function isClientGone(request: FastifyRequest, error: { code?: string; message: string }): boolean {
  if (error.code === 'ECONNRESET' || error.code === 'ERR_STREAM_PREMATURE_CLOSE') return true;
  return request.raw.destroyed && /aborted|closed/i.test(error.message);
}

async function* emptyStream(): AsyncIterable<Buffer> {}

/** 1052 before any byte is read when the announced length is already over the limit. */
function assertAnnouncedLength(request: FastifyRequest, limit: number): void {
  const announced = Number(request.headers['content-length']);
  if (Number.isFinite(announced) && announced > limit)
    throw new AppError(1052, `Request body too large for this operation (at most ${limit} bytes)`);
}

/**
 * The body chunk by chunk, refused past the limit (1052) and checked against the signature at
 * its end. A refused body is not destroyed: what the client still sends is read and dropped
 * while the 413 goes out, so the client can read it (see closeAfterAnswer).
 */
class VerifiedBody implements AsyncIterable<Buffer> {
  private readonly iterator: AsyncIterator<unknown>;
  private size = 0;
  private isDone = false;

  constructor(
    private readonly source: Readable,
    private readonly limit: number,
    private readonly verifier: BodyVerifier,
  ) {
    this.iterator = source.iterator({ destroyOnReturn: false });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      const bytes = await this.next();
      if (bytes === undefined) return;
      yield bytes;
    }
  }

  /** Reads what the handler left (within the limit) and checks the signature over all of it. */
  async drainAndVerify(): Promise<void> {
    while ((await this.next()) !== undefined);
  }

  private async next(): Promise<Buffer | undefined> {
    if (this.isDone) return undefined;
    const { value, done } = await this.iterator.next();
    if (done === true) {
      this.isDone = true;
      this.verifier.verify();
      return undefined;
    }
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value as string);
    this.size += bytes.length;
    if (this.size > this.limit) {
      this.isDone = true;
      await this.iterator.return?.();
      throw new AppError(1052, `Request body too large for this operation (at most ${this.limit} bytes)`);
    }
    this.verifier.update(bytes);
    return bytes;
  }
}
